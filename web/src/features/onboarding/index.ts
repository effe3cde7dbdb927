export { AccountOverlays } from './components/AccountOverlays';
export { AlphaAccessCard } from './components/AlphaAccessCard';
export { BipaDialog } from './components/BipaDialog';
export { ChecklistCard, useChecklistToasts } from './components/ChecklistCard';
export { OnboardingSurveyDialog } from './components/OnboardingSurveyDialog';
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
