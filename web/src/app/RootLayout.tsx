import { Outlet, useLocation } from 'react-router';
import { Toaster } from '@/components/Toaster';
import { useRemoteSignOut } from '@/lib/session';

/** Toasts sit top-centre on sign-in/sign-up, bottom-right elsewhere (spec §2). */
export function toasterPositionFor(pathname: string): 'top-center' | 'bottom-right' {
  return pathname.startsWith('/app/sign-in') || pathname.startsWith('/app/sign-up') ? 'top-center' : 'bottom-right';
}

export function RootLayout() {
  const { pathname } = useLocation();
  useRemoteSignOut();
  return (
    <>
      <Outlet />
      <Toaster position={toasterPositionFor(pathname)} />
    </>
  );
}
