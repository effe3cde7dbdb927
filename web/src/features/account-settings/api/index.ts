import { z } from 'zod';
import { ApiError, client, httpErrorMessage, unwrap } from '@/lib/api';
import { MESSAGES } from '@/lib/constants';
import { withSensitiveVerification } from '@/lib/sensitive';

export const ACCOUNT_MESSAGES = {
  /** Spec §8. */
  emailUpdated: 'Email updated! Please refresh this page to reauthenticate.',
  emailUpdateFailedPrefix: 'Unable to update email, ',
  optedOut: 'We have opted you out of receiving product updates.',
  optOutFailed: 'An error occurred while trying to opt you out from receiving product updates, please try again.',
  codeSent: 'We sent a 6-digit code to your new address. It is valid for 15 minutes.',
  codeRequired: 'Please enter the 6-digit code from the email.',
  sameEmail: 'That is already your email address.',
  accountDeleted: 'Your account was deleted.',
} as const;

// Sensitive actions (spec §7): from an older session they first ask for a mailed code.
export const sendEmailChangeCode = withSensitiveVerification((email: string) =>
  unwrap(client.POST('/v1/user/send-email-change-verification', { body: { email } })),
);

export const changeEmail = (code: string) =>
  unwrap(client.PUT('/v1/user/email', { params: { query: { verification_code: code } } }));

export const optOutOfUpdates = () => unwrap(client.POST('/v1/user/opt-out-of-updates'));

export const deleteAccount = withSensitiveVerification((password: string) =>
  unwrap(client.DELETE('/v1/user/delete', { body: password ? { password } : {} })),
);

export const newEmailSchema = z
  .string()
  .trim()
  .min(1, 'Please enter your new email address.')
  .pipe(z.email('Please enter a valid email address.'));

export function isSixDigitCode(value: string): boolean {
  return /^\d{6}$/.test(value.replace(/\s+/g, ''));
}

/** Spec §8: email update failure reads "Unable to update email, {text}". */
export function emailUpdateError(err: unknown): string {
  if (err instanceof ApiError && err.status === 429) return MESSAGES.tooManyAttempts;
  const text = err instanceof ApiError && err.status < 500 ? err.message : httpErrorMessage(err);
  if (text.startsWith(ACCOUNT_MESSAGES.emailUpdateFailedPrefix)) return text;
  return `${ACCOUNT_MESSAGES.emailUpdateFailedPrefix}${text.charAt(0).toLowerCase()}${text.slice(1)}`;
}

export const updateFirstName = (firstName: string) => unwrap(client.PATCH('/api/account', { body: { first_name: firstName } }));

/** Ends every session (this one too): the user signs in again with the new password. */
export const changePassword = (currentPassword: string, newPassword: string) =>
  unwrap(client.POST('/api/auth/change-password', { body: { current_password: currentPassword, new_password: newPassword } }));

/** The body field a 422 names (`loc: ["body", field]`), if any. */
export function invalidField(err: unknown): string | undefined {
  if (!(err instanceof ApiError) || err.status !== 422) return undefined;
  const detail = (err.payload as { detail?: Array<{ loc?: unknown[] }> } | undefined)?.detail;
  const loc = Array.isArray(detail) ? detail[0]?.loc : undefined;
  return Array.isArray(loc) && typeof loc[1] === 'string' ? loc[1] : undefined;
}
