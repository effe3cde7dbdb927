export { AlphaAccessCard } from './components/AlphaAccessCard';
export { BipaDialog } from './components/BipaDialog';
export { ChecklistCard, useChecklistToasts } from './components/ChecklistCard';
export { OnboardingNextPage, OnboardingPage } from './components/OnboardingPages';
export { OnboardingSurveyForm } from './components/OnboardingSurveyForm';
export {
  afterOnboarding,
  ONBOARDING_NEXT_ROUTE,
  ONBOARDING_ROUTE,
  onboardingRedirect,
  openDuringOnboarding,
  safeOnboardingRedirect,
} from './routing';
export { PublicNameForm } from './components/PublicNameForm';
export { useAccountUser } from './hooks';
export {
  accountUserQueryKey,
  bipaRequired,
  congratulations,
  newlyCompletedItems,
  reportApiKeyUnhidden,
  showChecklist,
  type AccountUser,
} from './api';
