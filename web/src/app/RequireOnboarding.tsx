import { useRef } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { Spinner } from '@/components/Spinner';
import { onboardingRedirect, useAccountUser } from '@/features/onboarding';

/**
 * Sends a signed-in user who has not answered the onboarding survey (is_onboarding_completed
 * false: every new account) to /app/onboarding, from any app page but the account essentials.
 * Waits for the account so the app never flashes before the survey; if the account cannot be
 * loaded the app is shown (its own pages report the error) rather than locking the user out.
 */
export function RequireOnboarding() {
  const user = useAccountUser();
  const location = useLocation();
  // Only the first load waits: a query that failed goes back to pending when the shell's own
  // observers refetch it, and hiding the shell then would unmount them (a loop).
  const settled = useRef(false);
  if (user.isPending && !settled.current) {
    return (
      <div className="flex min-h-screen items-center justify-center">
        <Spinner label="Loading" />
      </div>
    );
  }
  settled.current = true;
  const to = onboardingRedirect(user.data, location);
  if (to) return <Navigate to={to} replace />;
  return <Outlet />;
}
