import { useEffect, useState, type ReactNode } from 'react';
import { Button } from '@/components/Button';
import { AlertIcon } from '@/components/icons';
import { Spinner } from '@/components/Spinner';
import type { UploadPhase } from './useUpload';

export function ProgressBar({ label, value, testId }: { label: string; value: number; testId?: string }) {
  const pct = Math.round(Math.min(1, Math.max(0, value)) * 100);
  return (
    <div>
      <div className="mb-1 flex justify-between text-xs text-gray-600 dark:text-gray-400">
        <span>{label}</span>
        <span>{pct} %</span>
      </div>
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
        data-testid={testId}
        className="h-2 overflow-hidden rounded-full bg-gray-200 dark:bg-gray-800"
      >
        <div className="h-full rounded-full bg-gray-900 transition-[width] dark:bg-white" style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}

/** Seconds since `since`, refreshed four times a second. */
function useElapsed(since: number) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, [since]);
  return Math.max(0, now - since) / 1000;
}

function Processing({ text, label, estimate, since, testId }: { text: ReactNode; label: string; estimate: (elapsed: number) => number; since: number; testId?: string }) {
  const elapsed = useElapsed(since);
  return (
    <div className="space-y-1" aria-live="polite">
      <p className="flex items-center gap-2 truncate text-sm">
        <Spinner /> {text}
      </p>
      <ProgressBar label={label} value={estimate(elapsed)} testId={testId} />
    </div>
  );
}

/**
 * An upload's progress as useUpload follows it: the bytes sent (with Cancel), then an estimate
 * of the server's work (estimate maps the seconds since the upload ended to 0…1), or why it failed.
 */
export function UploadProgress({
  phase,
  onCancel,
  processingText,
  processingLabel,
  estimate,
  testIds = {},
}: {
  phase: UploadPhase;
  onCancel: () => void;
  /** The line above the second bar, e.g. "Transcribing a.mp3…". */
  processingText: (name: string) => ReactNode;
  processingLabel: string;
  estimate: (elapsedSeconds: number) => number;
  testIds?: { upload?: string; processing?: string };
}) {
  switch (phase.kind) {
    case 'uploading':
      return (
        <div className="space-y-1" aria-live="polite">
          <p className="truncate text-sm">Uploading {phase.name}…</p>
          <ProgressBar label="Upload" value={phase.total > 0 ? phase.sent / phase.total : 0} testId={testIds.upload} />
          <Button variant="ghost" size="sm" onClick={onCancel}>
            Cancel
          </Button>
        </div>
      );
    case 'processing':
      return (
        <Processing
          text={processingText(phase.name)}
          label={processingLabel}
          estimate={estimate}
          since={phase.since}
          testId={testIds.processing}
        />
      );
    case 'failed':
      return (
        <p role="alert" className="flex items-start gap-2 rounded-lg bg-red-50 p-3 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
          <AlertIcon size={16} className="mt-0.5 shrink-0" />
          <span>
            {phase.name}: {phase.message}
          </span>
        </p>
      );
    default:
      return null;
  }
}
