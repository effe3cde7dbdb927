import { useMemo } from 'react';
import { Outlet, useLocation } from 'react-router';
import { AuthLayout, pickStartSlide } from '@/features/auth';

/** Auth pages share the layout; the carousel start slide depends on the page. */
export function AuthRoute() {
  const { pathname, search } = useLocation();
  const mode = pathname.startsWith('/app/sign-up') ? 'sign-up' : pathname === '/app/sign-in' ? 'sign-in' : 'other';
  const start = useMemo(() => {
    const params = new URLSearchParams(search);
    return pickStartSlide(mode, params.get('redirect') ?? params.get('promo'));
    // Chosen once per kind of page, not on every query change.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [mode]);
  return (
    <AuthLayout key={mode} startSlide={start}>
      <Outlet />
    </AuthLayout>
  );
}
