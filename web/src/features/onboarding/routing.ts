import { DEFAULT_APP_ROUTE } from '@/lib/constants';

/** The onboarding survey (spec §2 app path "onboarding"). */
export const ONBOARDING_ROUTE = '/app/onboarding';
/** What to do next, after the survey (spec §2 "onboarding (and next)"). */
export const ONBOARDING_NEXT_ROUTE = '/app/onboarding/next';

/**
 * Paths a signed-in user who has not finished the survey may still open: the survey itself and
 * the account essentials (settings, security — a workspace that requires 2FA sends them there
 * first). Everything else under /app leads back to the survey.
 */
const OPEN_DURING_ONBOARDING = ['/app/onboarding', '/app/settings', '/app/settings/security'];

function trimmed(pathname: string): string {
  return pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
}

/** True when the path may be shown while the survey is pending. */
export function openDuringOnboarding(pathname: string): boolean {
  const p = trimmed(pathname);
  return OPEN_DURING_ONBOARDING.some((open) => p === open || (open === ONBOARDING_ROUTE && p.startsWith(`${open}/`)));
}

/**
 * A same-origin app path to go back to after onboarding, or null: only /app paths, never the
 * onboarding pages themselves, nothing that could leave the origin ("//host", "/\host").
 */
export function safeOnboardingRedirect(value: string | null | undefined): string | null {
  if (!value || !value.startsWith('/app') || value.startsWith('//') || value.includes('\\')) return null;
  let url: URL;
  try {
    url = new URL(value, 'http://timbre.invalid');
  } catch {
    return null;
  }
  if (url.origin !== 'http://timbre.invalid') return null;
  const p = trimmed(url.pathname);
  if (p !== '/app' && !p.startsWith('/app/')) return null;
  if (p === ONBOARDING_ROUTE || p.startsWith(`${ONBOARDING_ROUTE}/`)) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** Where a path goes once the survey is done (the path itself, or the default app page). */
export function afterOnboarding(redirect: string | null | undefined): string {
  return safeOnboardingRedirect(redirect) ?? DEFAULT_APP_ROUTE;
}

/** The query string that carries a redirect target through the onboarding pages ("" for none). */
export function redirectQuery(redirect: string | null | undefined): string {
  const safe = safeOnboardingRedirect(redirect);
  return safe && safe !== DEFAULT_APP_ROUTE ? `?${new URLSearchParams({ redirect: safe }).toString()}` : '';
}

/**
 * Where the app sends a signed-in user on this location, or null to let it through: a user
 * whose is_onboarding_completed is false goes to the survey (remembering where they were
 * headed); users who finished it, or whose account has not loaded, are let through.
 */
export function onboardingRedirect(
  user: { is_onboarding_completed?: boolean } | undefined | null,
  location: { pathname: string; search?: string },
): string | null {
  if (user?.is_onboarding_completed !== false) return null;
  if (openDuringOnboarding(location.pathname)) return null;
  return `${ONBOARDING_ROUTE}${redirectQuery(`${location.pathname}${location.search ?? ''}`)}`;
}
