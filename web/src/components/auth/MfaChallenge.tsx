import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { TextField } from '@/components/Field';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { MESSAGES } from '@/lib/constants';
import { isTotpCode, MFA_CODE_MESSAGES, normaliseBackupCode, normaliseTotp, verifyMfa, type MfaVerified } from '@/lib/mfa';

export const MFA_MESSAGES = {
  expired: 'This sign-in took too long. Please enter your email and password again.',
} as const;

interface Props {
  mfaToken: string;
  onVerified: (result: MfaVerified) => void | Promise<void>;
  /** Back to the password step, with a message when the challenge ended. */
  onRestart: (message?: string) => void;
}

/** The sign-in's second step: a TOTP code, or a backup code, for the challenge sign-in answered. */
export function MfaChallenge({ mfaToken, onVerified, onRestart }: Props) {
  const [useBackup, setUseBackup] = useState(false);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | undefined>();

  const verify = useMutation({
    mutationFn: verifyMfa,
    onSuccess: (res) => onVerified(res),
    onError: (err) => {
      if (err instanceof ApiError && err.status === 429) return setError(MESSAGES.tooManyAttempts);
      if (err instanceof ApiError && err.errorType === 'invalid_mfa_token') return onRestart(MFA_MESSAGES.expired);
      setError(err instanceof ApiError && err.status < 500 ? err.message : httpErrorMessage(err));
    },
  });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (useBackup) {
      const code = normaliseBackupCode(value);
      if (!code) return setError(MFA_CODE_MESSAGES.backupCodeRequired);
      setError(undefined);
      verify.mutate({ mfa_token: mfaToken, backup_code: code });
    } else {
      if (!isTotpCode(value)) return setError(MFA_CODE_MESSAGES.codeRequired);
      setError(undefined);
      verify.mutate({ mfa_token: mfaToken, code: normaliseTotp(value) });
    }
  };

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5" aria-label="Two-factor authentication">
      <TextField
        key={useBackup ? 'backup' : 'totp'}
        label={useBackup ? 'Backup code' : 'Authentication code'}
        name={useBackup ? 'backup_code' : 'code'}
        inputMode={useBackup ? 'text' : 'numeric'}
        autoComplete="one-time-code"
        autoCapitalize="off"
        spellCheck={false}
        placeholder={useBackup ? 'xxxxx-xxxxx' : '123456'}
        value={value}
        onChange={(e) => {
          setValue(e.target.value);
          setError(undefined);
        }}
        hint={
          useBackup
            ? 'Each backup code works once.'
            : 'Open your authenticator app and enter the 6-digit code for Timbre.'
        }
        error={error}
        autoFocus
      />
      <Button type="submit" size="lg" className="w-full" loading={verify.isPending}>
        Verify
      </Button>
      <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
        <button
          type="button"
          className="cursor-pointer text-gray-600 underline-offset-4 hover:underline dark:text-gray-400"
          onClick={() => {
            setUseBackup((b) => !b);
            setValue('');
            setError(undefined);
          }}
        >
          {useBackup ? 'Use your authenticator app' : 'Use a backup code'}
        </button>
        <button
          type="button"
          className="cursor-pointer text-gray-600 underline-offset-4 hover:underline dark:text-gray-400"
          onClick={() => onRestart()}
        >
          Back to sign in
        </button>
      </div>
    </form>
  );
}
