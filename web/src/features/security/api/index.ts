import { client, unwrap, type Schemas } from '@/lib/api';
import { withSensitiveVerification } from '../sensitive';

export type MfaStatus = Schemas['SecurityMFAStatus'];
export type TotpEnrollment = Schemas['SecurityTOTPEnrollment'];
export type SecuritySession = Schemas['SecuritySession'];
export type MfaVerified = Schemas['SecurityMFAVerified'];

export const mfaQueryKey = ['security', 'mfa'] as const;
export const sessionsQueryKey = ['security', 'sessions'] as const;

/** The settings query that opens the 2FA setup dialog (spec §2: settings `?dialog=add-2fa`). */
export const ADD_2FA_DIALOG = 'add-2fa';
export const SECURITY_ROUTE = '/app/settings/security';
export const ADD_2FA_ROUTE = `${SECURITY_ROUTE}?dialog=${ADD_2FA_DIALOG}`;

export const SECURITY_MESSAGES = {
  codeRequired: 'Please enter the 6-digit code from your authenticator app.',
  backupCodeRequired: 'Please enter one of your backup codes.',
  mfaEnabled: 'Two-factor authentication is on.',
  mfaDisabled: 'Two-factor authentication is off.',
  backupCodesCopied: 'Backup codes copied to clipboard',
  copyFailed: 'Could not copy. Please select the codes and copy them manually.',
  sessionRevoked: 'The session was signed out.',
  enrollmentRequired:
    'Your workspace requires two-factor authentication. Set it up to continue using Timbre.',
} as const;

export const getMfaStatus = () => unwrap(client.GET('/api/auth/mfa'));
/** Starts TOTP set-up; the server first asks for a mailed code (a stolen session must not enrol its own app). */
export const enrollTotp = withSensitiveVerification(() => unwrap(client.POST('/api/auth/mfa/totp/enroll')));
export const confirmTotp = (code: string) => unwrap(client.POST('/api/auth/mfa/totp/confirm', { body: { code } }));

/** Turns TOTP off with a current code or a backup code (a sensitive action: may ask for the mailed code first). */
export const disableTotp = withSensitiveVerification((proof: { code?: string; backup_code?: string }) =>
  unwrap(client.POST('/api/auth/mfa/totp/disable', { body: proof })),
);

export const regenerateBackupCodes = (code: string) => unwrap(client.POST('/v1/user/backup-code', { body: { code } }));

export const listSessions = () => unwrap(client.GET('/api/auth/sessions'));
export const revokeSession = (sessionId: string) =>
  unwrap(client.DELETE('/api/auth/sessions/{session_id}', { params: { path: { session_id: sessionId } } }));
export const revokeOtherSessions = () => unwrap(client.DELETE('/api/auth/sessions'));
export const signOutEverywhere = () => unwrap(client.POST('/api/auth/sign-out-everywhere'));

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

/** The text file offered for download: one code a line. */
export function backupCodesText(codes: string[], email?: string): string {
  const head = ['Timbre backup codes', ...(email ? [`Account: ${email}`] : []), 'Each code works once.', ''];
  return `${[...head, ...codes].join('\n')}\n`;
}

/** Short description of a browser from its user agent ("Chrome on macOS"). */
export function describeUserAgent(ua: string): string {
  if (!ua) return 'Unknown browser';
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /OPR\//.test(ua)
      ? 'Opera'
      : /Firefox\//.test(ua)
        ? 'Firefox'
        : /Chrome\//.test(ua) || /Chromium\//.test(ua)
          ? 'Chrome'
          : /Safari\//.test(ua)
            ? 'Safari'
            : /curl\//i.test(ua)
              ? 'curl'
              : 'Browser';
  const os = /Windows/.test(ua)
    ? 'Windows'
    : /iPhone|iPad/.test(ua)
      ? 'iOS'
      : /Mac OS X|Macintosh/.test(ua)
        ? 'macOS'
        : /Android/.test(ua)
          ? 'Android'
          : /Linux/.test(ua)
            ? 'Linux'
            : '';
  return os ? `${browser} on ${os}` : browser;
}
