/** The error code sign-in, sign-up and password reset answer for an SSO-only email. */
export const SSO_REQUIRED = 'sso_required';

/** The browser navigation that starts the flow (GET /api/sso/start): same-origin, with the email and redirect. */
export function ssoStartUrl(email: string, redirect?: string | null): string {
  const q = new URLSearchParams({ email });
  if (redirect) q.set('redirect', redirect);
  return `/api/sso/start?${q.toString()}`;
}

/** Goes to a URL with a full page load (tests replace it). */
export const browser = {
  assign(url: string) {
    window.location.assign(url);
  },
};
