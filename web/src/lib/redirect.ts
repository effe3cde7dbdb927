import { DEFAULT_APP_ROUTE } from './constants';

const AUTH_PATHS = ['/app/sign-in', '/app/sign-up', '/app/action'];

/**
 * Sign-in redirect target: honoured only when it resolves to the same origin
 * and its path starts with /app/ (and is not an auth page); otherwise the
 * default route is used and the unsafe attempt is logged.
 */
export function safeRedirect(
  redirect: string | null | undefined,
  origin: string = window.location.origin,
): string {
  if (!redirect) return DEFAULT_APP_ROUTE;
  let url: URL;
  try {
    // Reject protocol-relative and backslash tricks before URL parsing normalises them.
    if (!redirect.startsWith('/') || redirect.startsWith('//') || redirect.includes('\\')) {
      throw new Error('not a path');
    }
    url = new URL(redirect, origin);
  } catch {
    console.warn('[timbre] ignored unsafe redirect', redirect);
    return DEFAULT_APP_ROUTE;
  }
  const isAuthPage = AUTH_PATHS.some((p) => url.pathname === p || url.pathname.startsWith(`${p}/`));
  if (url.origin !== origin || !url.pathname.startsWith('/app/') || isAuthPage) {
    console.warn('[timbre] ignored unsafe redirect', redirect);
    return DEFAULT_APP_ROUTE;
  }
  return `${url.pathname}${url.search}${url.hash}`;
}
