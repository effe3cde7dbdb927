import { Button } from '@/components/Button';
import { AlertIcon, CopyIcon, DownloadIcon } from '@/components/icons';
import { saveBlob } from '@/lib/download';
import { toast } from '@/lib/toast';
import { backupCodesText, SECURITY_MESSAGES } from '../api';

/** Backup codes, shown once, with copy and download. */
export function BackupCodes({ codes, email }: { codes: string[]; email?: string }) {
  const text = backupCodesText(codes, email);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(codes.join('\n'));
      toast.success(SECURITY_MESSAGES.backupCodesCopied);
    } catch {
      toast.error(SECURITY_MESSAGES.copyFailed);
    }
  };
  return (
    <div>
      <div
        role="alert"
        className="mb-4 flex gap-2 rounded-lg bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100"
      >
        <AlertIcon size={18} className="shrink-0" />
        <span>
          Save these backup codes somewhere safe. Each one works once if you lose your authenticator. They will not be
          shown again.
        </span>
      </div>
      <ul
        aria-label="Backup codes"
        className="grid grid-cols-2 gap-2 rounded-xl border border-gray-200 bg-gray-50 p-3 font-mono text-sm select-all dark:border-gray-700 dark:bg-gray-950"
      >
        {codes.map((c) => (
          <li key={c} className="text-center">
            {c}
          </li>
        ))}
      </ul>
      <div className="mt-3 flex flex-wrap gap-2">
        <Button variant="outline" size="sm" onClick={() => void copy()}>
          <CopyIcon size={14} /> Copy
        </Button>
        <Button
          variant="outline"
          size="sm"
          onClick={() => saveBlob(new Blob([text], { type: 'text/plain' }), 'timbre-backup-codes.txt')}
        >
          <DownloadIcon size={14} /> Download
        </Button>
      </div>
    </div>
  );
}
