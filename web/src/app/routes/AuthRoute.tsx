import { useEffect, useMemo, useRef } from 'react';
import { Outlet, useBlocker, useLocation } from 'react-router';
import { pickStartSlide } from '@/components/auth/AuthCarousel';
import { AuthLayout } from '@/components/auth/AuthLayout';
import { TIMINGS } from '@/lib/constants';

const AUTH_PATHS = ['/app/sign-in', '/app/sign-up', '/app/action', '/app/sso'];

/** True for the pages that use the auth layout. */
export function isAuthPath(pathname: string): boolean {
  return AUTH_PATHS.some((p) => pathname === p || pathname.startsWith(`${p}/`));
}

/**
 * Leaving the auth pages fades them out over 0.3 s (spec §2, §9): a navigation
 * from an auth page to anywhere else is held for that long, then let through.
 */
function useFadeOutOnLeave(): boolean {
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => isAuthPath(currentLocation.pathname) && !isAuthPath(nextLocation.pathname),
  );
  const proceed = useRef(blocker.proceed);
  proceed.current = blocker.proceed;
  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    const timer = setTimeout(() => proceed.current?.(), TIMINGS.authFadeMs);
    return () => clearTimeout(timer);
  }, [blocker.state]);
  return blocker.state !== 'unblocked';
}

/** Auth pages share the layout; the carousel start slide depends on the page. */
export function AuthRoute() {
  const { pathname, search } = useLocation();
  const leaving = useFadeOutOnLeave();
  const mode = pathname.startsWith('/app/sign-up') ? 'sign-up' : pathname === '/app/sign-in' ? 'sign-in' : 'other';
  const start = useMemo(() => {
    const params = new URLSearchParams(search);
    return pickStartSlide(mode, params.get('redirect') ?? params.get('promo'));
    // Chosen once per kind of page, not on every query change.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [mode]);
  return (
    <AuthLayout key={mode} startSlide={start} leaving={leaving}>
      <Outlet />
    </AuthLayout>
  );
}
