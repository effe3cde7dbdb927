import { client, unwrap, type Schemas } from '@/lib/api';

/** The sign-in's second step and the account's 2FA settings both ask for these codes. */
export type MfaVerified = Schemas['SecurityMFAVerified'];

export const MFA_CODE_MESSAGES = {
  codeRequired: 'Please enter the 6-digit code from your authenticator app.',
  backupCodeRequired: 'Please enter one of your backup codes.',
} as const;

/** Answers the sign-in MFA challenge with a TOTP code or a backup code. */
export const verifyMfa = (body: Schemas['SecurityMFAVerifyRequest']) =>
  unwrap(client.POST('/api/auth/mfa/verify', { body }));

/** A TOTP code: 6 digits (spaces allowed while typing, removed here). */
export function normaliseTotp(value: string): string {
  return value.replace(/\s+/g, '');
}

export function isTotpCode(value: string): boolean {
  return /^\d{6}$/.test(normaliseTotp(value));
}

/** A backup code as typed: trimmed, lower case. */
export function normaliseBackupCode(value: string): string {
  return value.trim().toLowerCase();
}
