import { OnboardingNextPage, OnboardingPage } from '@/features/onboarding';
import { useDocumentTitle } from '../useDocumentTitle';

/** /app/onboarding: the survey of a new user (spec §2, §4). */
export function OnboardingRoute() {
  useDocumentTitle('Welcome');
  return <OnboardingPage />;
}

/** /app/onboarding/next: where to start after the survey. */
export function OnboardingNextRoute() {
  useDocumentTitle('Get started');
  return <OnboardingNextPage />;
}
