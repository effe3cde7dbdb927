import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { TextField } from '@/components/Field';
import { isTotpCode, normaliseBackupCode, normaliseTotp, SECURITY_MESSAGES } from '../api';

export type CodeProof = { code: string } | { backup_code: string };

interface Props {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  /** Offer "use a backup code instead". */
  allowBackupCode?: boolean;
  loading?: boolean;
  /** Server error to show under the field. */
  error?: string;
  onSubmit: (proof: CodeProof) => void;
}

/** Asks for a current TOTP code (or, where allowed, a backup code) before a sensitive change. */
export function CodeProofDialog({
  open,
  onOpenChange,
  title,
  description,
  confirmLabel,
  danger,
  allowBackupCode,
  loading,
  error,
  onSubmit,
}: Props) {
  const [useBackup, setUseBackup] = useState(false);
  const [value, setValue] = useState('');
  const [localError, setLocalError] = useState<string | undefined>();
  useEffect(() => {
    if (open) {
      setUseBackup(false);
      setValue('');
      setLocalError(undefined);
    }
  }, [open]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (useBackup) {
      const v = normaliseBackupCode(value);
      if (!v) return setLocalError(SECURITY_MESSAGES.backupCodeRequired);
      setLocalError(undefined);
      onSubmit({ backup_code: v });
    } else {
      if (!isTotpCode(value)) return setLocalError(SECURITY_MESSAGES.codeRequired);
      setLocalError(undefined);
      onSubmit({ code: normaliseTotp(value) });
    }
  };

  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={title} description={description}>
      <form onSubmit={submit} noValidate className="space-y-4">
        <TextField
          label={useBackup ? 'Backup code' : 'Code from your authenticator app'}
          name={useBackup ? 'backup_code' : 'code'}
          inputMode={useBackup ? 'text' : 'numeric'}
          autoComplete="one-time-code"
          autoCapitalize="off"
          spellCheck={false}
          value={value}
          onChange={(e) => {
            setValue(e.target.value);
            setLocalError(undefined);
          }}
          error={localError ?? error}
          autoFocus
        />
        {allowBackupCode && (
          <button
            type="button"
            className="cursor-pointer text-sm text-gray-600 underline-offset-4 hover:underline dark:text-gray-400"
            onClick={() => {
              setUseBackup((b) => !b);
              setValue('');
              setLocalError(undefined);
            }}
          >
            {useBackup ? 'Use a code from your authenticator app' : 'Use a backup code instead'}
          </button>
        )}
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" variant={danger ? 'danger' : 'primary'} loading={loading}>
            {confirmLabel}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
