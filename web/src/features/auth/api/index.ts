import { z } from 'zod';
import { client, unwrap, type Schemas } from '@/lib/api';
import { SENSITIVE_TEXT } from '@/lib/sensitive';
import { emailField as email, emailSchema } from '@/lib/validation';

/**
 * `invite_code` (an invitation to the same email) joins the inviting workspace on sign-up;
 * `referral_code` is the code of the referral link the user came by (kept on the account).
 */
export const signUp = (body: Schemas['SignUpRequest'] & { invite_code?: string; referral_code?: string }) =>
  unwrap(client.POST('/api/auth/sign-up', { body }));

/** Sign-in's answer: an open session, or an MFA challenge (`mfa_required`, `mfa_token`). */
export type SignInResult = Schemas['SignInResponse'];

/** `redirect` is checked by the server too (spec §2 rule; unsafe attempts are logged there). */
export const signIn = (body: Schemas['SignInRequest'] & { redirect?: string }) =>
  unwrap(client.POST('/api/auth/sign-in', { body }));

export const verifyEmail = (code: string) => unwrap(client.POST('/api/auth/verify-email', { body: { code } }));

export const sendVerificationEmail = (email: string) =>
  unwrap(client.POST('/api/auth/send-verification-email', { body: { email } }));

export const sendPasswordResetEmail = (email: string) =>
  unwrap(client.POST('/api/auth/send-password-reset-email', { body: { email } }));

export const checkResetCode = (code: string) => unwrap(client.POST('/api/auth/check-reset-code', { body: { code } }));

export const resetPassword = (code: string, password: string) =>
  unwrap(client.POST('/api/auth/reset-password', { body: { code, password } }));

/** True when the development mailbox answers (no SMTP configured). */
export async function isDevMailboxAvailable(): Promise<boolean> {
  try {
    await unwrap(client.GET('/api/dev/mailbox'));
    return true;
  } catch {
    return false;
  }
}

export const PASSWORD_MIN_LENGTH = 8;


const password = z.string().min(PASSWORD_MIN_LENGTH, `Password must be at least ${PASSWORD_MIN_LENGTH} characters.`);

export const signUpSchema = z.object({
  email,
  password,
  terms: z.literal(true, 'You must agree to the Terms of Service and Privacy Policy to continue.'),
});

export const signInSchema = z.object({
  email,
  password: z.string().min(1, 'Please enter your password.'),
});

export { emailSchema };

export const newPasswordSchema = z.object({ password });

export type FieldErrors<K extends string> = Partial<Record<K, string>>;

/** First error message per top-level field. */
export function fieldErrors<K extends string>(error: z.ZodError): FieldErrors<K> {
  const out: FieldErrors<K> = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? '') as K;
    if (key && !out[key]) out[key] = issue.message;
  }
  return out;
}

export type EmailActionResult = Schemas['SecurityEmailActionResult'];

/** The server side of /app/action (spec §2): applies the link's mode with its code. */
export const applyEmailAction = (body: Schemas['SecurityEmailActionRequest']) =>
  unwrap(client.POST('/api/auth/action', { body }));

export { verifySensitiveActionCode } from '@/lib/sensitive';

/** The signed-in user's own referral link (spec §7). */
export const getReferralLink = () => unwrap(client.GET('/v1/user/referral-link'));

export const ACTION_MESSAGES = {
  sensitiveVerified: SENSITIVE_TEXT.verified,
  sensitiveTitle: SENSITIVE_TEXT.title,
  signInForSensitive: 'Please sign in to the account that received this email, then open the link again.',
  optedOut: 'We have opted you out of receiving product updates.',
  optOutFailed: 'An error occurred while trying to opt you out from receiving product updates, please try again.',
  supportTitle: 'Grant Support Access to Your Account',
  supportText: 'Do you want to grant our support team temporary access to your account?',
  supportConfirm: 'Grant Access',
  supportGranted: 'Thank you for granting us access to your account!',
  emailRecovered:
    'Your email address has been restored. Every session was signed out: sign in again, and consider resetting your password.',
  invalidLink: 'This link is invalid, has expired or has already been used.',
  signInForSupport: 'Please sign in to the account that received this email, then confirm the support access request.',
} as const;
