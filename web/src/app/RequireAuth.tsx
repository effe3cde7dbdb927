import { Navigate, Outlet, useLocation } from 'react-router';
import { Button } from '@/components/Button';
import { Spinner } from '@/components/Spinner';
import { useSession } from '@/features/auth';
import { httpErrorMessage } from '@/lib/api';
import { SIGN_IN_ROUTE } from '@/lib/constants';

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
  return <Outlet />;
}
