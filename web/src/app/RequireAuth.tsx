import { Navigate, Outlet, useLocation } from 'react-router';
import { Button } from '@/components/Button';
import { Spinner } from '@/components/Spinner';
import { useSession } from '@/lib/session';
import { SensitiveActionDialog } from '@/components/SensitiveActionDialog';
import { httpErrorMessage } from '@/lib/api';
import { SIGN_IN_ROUTE, ADD_2FA_ROUTE, SECURITY_ROUTE } from '@/lib/constants';

export function RequireAuth() {
  const session = useSession();
  const location = useLocation();

  if (session.isPending) {
    return (
      <div className="flex min-h-screen items-center justify-center">
        <Spinner label="Loading" />
      </div>
    );
  }
  if (session.isError && session.data === undefined) {
    return (
      <div role="alert" className="flex min-h-screen flex-col items-center justify-center gap-4 p-6 text-center">
        <p>{httpErrorMessage(session.error)}</p>
        <Button onClick={() => void session.refetch()}>Try again</Button>
      </div>
    );
  }
  if (!session.data) {
    const redirect = `${location.pathname}${location.search}`;
    return <Navigate to={`${SIGN_IN_ROUTE}?redirect=${encodeURIComponent(redirect)}`} replace />;
  }
  // A workspace that requires 2FA admits a user without it to the 2FA setup only.
  if (session.data.mfa_enrollment_required && location.pathname !== SECURITY_ROUTE) {
    return <Navigate to={ADD_2FA_ROUTE} replace />;
  }
  return (
    <>
      <Outlet />
      {/* One dialog for every sensitive call's mailed code (withSensitiveVerification). */}
      <SensitiveActionDialog />
    </>
  );
}
