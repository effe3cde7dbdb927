import { client, unwrap, type Schemas } from '@/lib/api';
import { withSensitiveVerification } from '@/lib/sensitive';
import { MFA_CODE_MESSAGES } from '@/lib/mfa';

export { isTotpCode, normaliseBackupCode, normaliseTotp, type MfaVerified } from '@/lib/mfa';

export type MfaStatus = Schemas['SecurityMFAStatus'];
export type TotpEnrollment = Schemas['SecurityTOTPEnrollment'];
export type SecuritySession = Schemas['SecuritySession'];

export const mfaQueryKey = ['security', 'mfa'] as const;
export const sessionsQueryKey = ['security', 'sessions'] as const;

export { ADD_2FA_DIALOG, ADD_2FA_ROUTE, SECURITY_ROUTE } from '@/lib/constants';

export const SECURITY_MESSAGES = {
  ...MFA_CODE_MESSAGES,
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
