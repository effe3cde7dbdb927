import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { CodeField } from '@/components/Field';
import { Spinner } from '@/components/Spinner';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { toast } from '@/lib/toast';
import {
  confirmTotp,
  enrollTotp,
  isTotpCode,
  mfaQueryKey,
  normaliseTotp,
  SECURITY_MESSAGES,
  type TotpEnrollment,
} from '../api';
import { BackupCodes } from './BackupCodes';
import { QrCode } from './QrCode';

/** Groups a base32 secret in fours for reading and typing. */
export function groupSecret(secret: string): string {
  return secret.replace(/(.{4})/g, '$1 ').trim();
}

interface Props {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  email?: string;
  /** Called once TOTP is on (after the backup codes are dismissed). */
  onDone?: () => void;
}

/**
 * The 2FA setup dialog (settings `?dialog=add-2fa`): a new TOTP secret as a
 * QR code and text, confirmed with a code from the app; then the backup
 * codes, shown this once, with copy and download.
 */
export function TwoFactorSetupDialog({ open, onOpenChange, email, onDone }: Props) {
  const queryClient = useQueryClient();
  const [enrollment, setEnrollment] = useState<TotpEnrollment | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [codes, setCodes] = useState<string[] | null>(null);

  const enroll = useMutation({
    mutationFn: enrollTotp,
    onSuccess: setEnrollment,
    onError: (err) => {
      if (err instanceof ApiError && err.errorType === 'mfa_already_enabled') {
        toast(err.message);
        void queryClient.invalidateQueries({ queryKey: mfaQueryKey });
        onOpenChange(false);
        return;
      }
      setError(httpErrorMessage(err));
    },
  });
  const { mutate: startEnroll, reset: resetEnroll } = enroll;

  useEffect(() => {
    if (open) {
      setEnrollment(null);
      setCodes(null);
      setCode('');
      setError(undefined);
      resetEnroll();
      startEnroll();
    }
  }, [open, startEnroll, resetEnroll]);

  const confirm = useMutation({
    mutationFn: confirmTotp,
    onSuccess: (res) => {
      setCodes(res.backup_codes);
      toast.success(SECURITY_MESSAGES.mfaEnabled);
      void queryClient.invalidateQueries({ queryKey: mfaQueryKey });
      void queryClient.invalidateQueries({ queryKey: ['session'] });
    },
    onError: (err) => {
      if (err instanceof ApiError && err.status < 500) setError(err.message);
      else setError(httpErrorMessage(err));
    },
  });

  const close = (next: boolean) => {
    if (next) return onOpenChange(true);
    onOpenChange(false);
    if (codes) onDone?.();
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!isTotpCode(code)) return setError(SECURITY_MESSAGES.codeRequired);
    setError(undefined);
    confirm.mutate(normaliseTotp(code));
  };

  if (codes) {
    return (
      <Dialog open={open} onOpenChange={close} title="Save your backup codes">
        <BackupCodes codes={codes} email={email} />
        <div className="mt-6 flex justify-end">
          <Button onClick={() => close(false)}>Done</Button>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog
      open={open}
      onOpenChange={close}
      title="Set up two-factor authentication"
      description="Scan the QR code with an authenticator app (such as 1Password, Authy or Google Authenticator), then enter the 6-digit code it shows."
    >
      {!enrollment ? (
        enroll.isError ? (
          <div role="alert" className="space-y-3 text-sm">
            <p className="text-red-600 dark:text-red-400">{error}</p>
            <Button variant="outline" size="sm" onClick={() => startEnroll()}>
              Try again
            </Button>
          </div>
        ) : (
          <div className="flex justify-center py-8">
            <Spinner label="Preparing" />
          </div>
        )
      ) : (
        <form onSubmit={onSubmit} noValidate className="space-y-4">
          <div className="flex justify-center">
            <QrCode value={enrollment.otpauth_url} label="QR code for your authenticator app" />
          </div>
          <div>
            <p className="text-xs text-gray-500 dark:text-gray-400">Can’t scan it? Enter this key in the app instead:</p>
            <code
              data-testid="totp-secret"
              className="mt-1 block rounded-lg bg-gray-50 px-3 py-2 text-center font-mono text-sm tracking-wide break-all select-all dark:bg-gray-950"
            >
              {groupSecret(enrollment.secret)}
            </code>
          </div>
          <CodeField
            label="Code from the app"
            name="code"
            value={code}
            onChange={(e) => {
              setCode(e.target.value);
              setError(undefined);
            }}
            error={error}
            autoFocus
          />
          <div className="flex justify-end gap-2">
            <Button variant="outline" onClick={() => close(false)}>
              Cancel
            </Button>
            <Button type="submit" loading={confirm.isPending}>
              Turn on 2FA
            </Button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
