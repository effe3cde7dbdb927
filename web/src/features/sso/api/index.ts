import { client, unwrap } from '@/lib/api';

export const findSsoProvider = (email: string, inviteCode?: string | null) =>
  unwrap(
    client.GET('/v1/workspace/find-sso-provider', {
      params: { query: { email, ...(inviteCode ? { invite_code: inviteCode } : {}) } },
    }),
  );

export const SSO_MESSAGES = {
  notFound: 'Single sign-on is not set up for this email address. Sign in with your password instead.',
  generic: 'Something went wrong, please try again later.',
} as const;

/**
 * Texts for the `?error=` codes a failed SSO callback sends back. The page
 * shows these, not the URL's own message, so a crafted link cannot put words
 * on the page.
 */
export const SSO_ERRORS: Record<string, string> = {
  sso_state_invalid: 'This sign-in link has expired or was already used. Please start signing in again.',
  sso_idp_error: 'The identity provider did not sign you in. Please try again or contact your workspace admin.',
  sso_response_invalid: "The identity provider's answer could not be verified, so you were not signed in.",
  sso_domain_mismatch:
    'Your identity provider vouched for an email address outside the domains it is set up for.',
  sso_not_member: 'Your account is not a member of this workspace. Ask a workspace admin to invite you.',
  sso_no_account:
    'There is no Timbre account for this email, and the workspace does not create accounts automatically. Ask a workspace admin to invite you.',
  sso_email_missing: 'The identity provider did not share a verified email address.',
  sso_disabled: 'Single sign-on for this workspace is turned off.',
  sso_misconfigured: "The workspace's identity provider is not set up correctly. Contact your workspace admin.",
  sso_failed: 'Something went wrong, please try again later.',
  sso_provider_not_found: 'Single sign-on is not set up for this email address. Sign in with your password instead.',
};

export function ssoErrorText(code: string | null): string | null {
  if (!code) return null;
  return SSO_ERRORS[code] ?? SSO_MESSAGES.generic;
}

export { browser, SSO_REQUIRED, ssoStartUrl } from '@/lib/sso';
