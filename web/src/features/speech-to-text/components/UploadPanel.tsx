import { useEffect, useId, useRef, useState, type DragEvent } from 'react';
import { Button } from '@/components/Button';
import { cn } from '@/components/cn';
import { httpErrorMessage } from '@/lib/api';
import { uploadForTranscription, type Transcription } from '../api';
import { ACCEPTED_FILES, DEFAULT_SETTINGS, settingsProblems, transcriptionProgress, type TranscriptionSettings } from '../api/model';
import { TranscriptionOptions } from './TranscriptionOptions';

type Phase =
  | { kind: 'idle' }
  | { kind: 'uploading'; name: string; sent: number; total: number }
  | { kind: 'transcribing'; name: string; since: number; audioSeconds?: number }
  | { kind: 'failed'; name: string; message: string };

/** Reads a file's duration in the browser (best effort: undefined when it cannot tell). */
function audioDuration(file: File): Promise<number | undefined> {
  return new Promise((resolve) => {
    if (typeof URL.createObjectURL !== 'function') return resolve(undefined);
    const url = URL.createObjectURL(file);
    const el = document.createElement('audio');
    const done = (d?: number) => {
      URL.revokeObjectURL(url);
      resolve(d !== undefined && Number.isFinite(d) ? d : undefined);
    };
    el.preload = 'metadata';
    el.onloadedmetadata = () => done(el.duration);
    el.onerror = () => done(undefined);
    el.src = url;
    setTimeout(() => done(undefined), 3000);
  });
}

function ProgressBar({ label, value, testId }: { label: string; value: number; testId: string }) {
  const pct = Math.round(value * 100);
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

/**
 * Drop or pick an audio or video file: it uploads with a progress bar, then the bar follows an
 * estimate of the transcription until the server answers with the transcript.
 */
export function UploadPanel({ onTranscribed }: { onTranscribed: (t: Transcription) => void }) {
  const inputId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [dragging, setDragging] = useState(false);
  const [settings, setSettings] = useState<TranscriptionSettings>(DEFAULT_SETTINGS);
  const [now, setNow] = useState(() => Date.now());
  const abort = useRef<AbortController | null>(null);
  const busy = phase.kind === 'uploading' || phase.kind === 'transcribing';

  useEffect(() => {
    if (phase.kind !== 'transcribing') return;
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, [phase.kind]);
  useEffect(() => () => abort.current?.abort(), []);

  async function start(file: File) {
    if (busy) return;
    const problem = Object.values(settingsProblems(settings))[0];
    if (problem) {
      if (inputRef.current) inputRef.current.value = '';
      return setPhase({ kind: 'failed', name: file.name, message: `Check the options first: ${problem}` });
    }
    const ctl = new AbortController();
    abort.current = ctl;
    const duration = audioDuration(file);
    setPhase({ kind: 'uploading', name: file.name, sent: 0, total: file.size });
    try {
      const t = await uploadForTranscription(file, {
        settings,
        signal: ctl.signal,
        onUploadProgress: (sent, total) => setPhase({ kind: 'uploading', name: file.name, sent, total }),
        onUploaded: () => {
          const since = Date.now();
          setNow(since);
          setPhase({ kind: 'transcribing', name: file.name, since });
          void duration.then((d) =>
            setPhase((p) => (p.kind === 'transcribing' && p.since === since ? { ...p, audioSeconds: d } : p)),
          );
        },
      });
      setPhase({ kind: 'idle' });
      onTranscribed(t);
    } catch (e) {
      if (ctl.signal.aborted) return setPhase({ kind: 'idle' });
      setPhase({ kind: 'failed', name: file.name, message: httpErrorMessage(e) });
    } finally {
      if (inputRef.current) inputRef.current.value = '';
    }
  }

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const file = e.dataTransfer.files[0];
    if (file) void start(file);
  };

  return (
    <section aria-label="Upload audio" className="space-y-3">
      <div
        data-testid="stt-dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          if (!busy) setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        className={cn(
          'flex flex-col items-center justify-center gap-2 rounded-xl border-2 border-dashed p-6 text-center text-sm transition-colors',
          dragging ? 'border-gray-900 bg-gray-50 dark:border-white dark:bg-gray-900' : 'border-gray-300 dark:border-gray-700',
          busy && 'opacity-60',
        )}
      >
        <p className="font-medium">Drop an audio or video file here</p>
        <p className="text-gray-500">or</p>
        <input
          id={inputId}
          ref={inputRef}
          type="file"
          accept={ACCEPTED_FILES}
          className="sr-only"
          disabled={busy}
          aria-label="Audio file"
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (file) void start(file);
          }}
        />
        <Button variant="outline" size="sm" disabled={busy} onClick={() => inputRef.current?.click()}>
          Choose a file
        </Button>
      </div>
      <details className="rounded-xl border border-gray-200 p-3 dark:border-gray-800">
        <summary className="cursor-pointer text-sm font-medium">Options</summary>
        <div className="mt-3">
          <TranscriptionOptions value={settings} onChange={setSettings} disabled={busy} />
        </div>
      </details>
      {phase.kind === 'uploading' && (
        <div className="space-y-1" aria-live="polite">
          <p className="truncate text-sm">Uploading {phase.name}…</p>
          <ProgressBar label="Upload" value={phase.total > 0 ? phase.sent / phase.total : 0} testId="stt-upload-progress" />
          <Button variant="ghost" size="sm" onClick={() => abort.current?.abort()}>
            Cancel
          </Button>
        </div>
      )}
      {phase.kind === 'transcribing' && (
        <div className="space-y-1" aria-live="polite">
          <p className="truncate text-sm">Transcribing {phase.name}…</p>
          <ProgressBar
            label="Transcription (estimated)"
            value={transcriptionProgress((now - phase.since) / 1000, phase.audioSeconds)}
            testId="stt-transcription-progress"
          />
        </div>
      )}
      {phase.kind === 'failed' && (
        <p role="alert" className="rounded-lg bg-red-50 p-3 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
          {phase.name}: {phase.message}
        </p>
      )}
    </section>
  );
}
