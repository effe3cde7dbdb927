import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Button } from '@/components/Button';
import { AlertIcon, DownloadIcon } from '@/components/icons';
import { Spinner } from '@/components/Spinner';
import { formatNumber } from '@/lib/format';
import { forgetPeaks, loadPeaks } from '@/lib/player/peaks';
import { isolateAudio, isolationHistoryQueryKey } from '../api';
import { checkFile, CREDITS_PER_MINUTE, errorMessage, isolatedFileName, isolationProgress } from '../api/model';
import { IsolationHistory } from './IsolationHistory';
import { SourcePicker } from './SourcePicker';
import { WaveformPlayer } from './WaveformPlayer';

type Phase =
  | { kind: 'idle' }
  | { kind: 'uploading'; sent: number; total: number }
  | { kind: 'processing'; since: number }
  | { kind: 'failed'; message: string };

interface Source {
  name: string;
  url: string;
}

interface Result {
  url: string;
  id: string | null;
  credits: number | null;
}

/** An object URL that is revoked (and dropped from the waveform cache) when replaced or unmounted. */
function useObjectUrl<T extends { url: string }>() {
  const [value, setValue] = useState<T | null>(null);
  const current = useRef<T | null>(null);
  const set = useCallback((next: T | null) => {
    const old = current.current;
    if (old && old.url !== next?.url) {
      URL.revokeObjectURL(old.url);
      forgetPeaks(old.url);
    }
    current.current = next;
    setValue(next);
  }, []);
  useEffect(() => () => set(null), [set]);
  return [value, set] as const;
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
 * /app/voice-isolator: upload, drop or record audio; the server removes the background noise;
 * the original and the isolated voice play side by side with their waveforms; the result
 * downloads and stays in the history below. onIsolated runs after each charged isolation (the
 * app layer refreshes the credits shown elsewhere).
 */
export function VoiceIsolatorPage({ onIsolated }: { onIsolated?: () => void } = {}) {
  const queryClient = useQueryClient();
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [source, setSource] = useObjectUrl<Source>();
  const [result, setResult] = useObjectUrl<Result>();
  const [audioSeconds, setAudioSeconds] = useState<number>();
  const [now, setNow] = useState(() => Date.now());
  const abort = useRef<AbortController | null>(null);
  const busy = phase.kind === 'uploading' || phase.kind === 'processing';

  useEffect(() => {
    if (phase.kind !== 'processing') return;
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, [phase.kind]);
  useEffect(() => () => abort.current?.abort(), []);

  async function isolate(file: File) {
    if (busy) return;
    const refused = checkFile(file);
    setResult(null);
    if (refused) {
      setSource(null);
      setPhase({ kind: 'failed', message: `${file.name}: ${refused}` });
      return;
    }
    const url = URL.createObjectURL(file);
    setSource({ name: file.name, url });
    setAudioSeconds(undefined);
    // The same decode draws the original's waveform; its duration feeds the progress estimate.
    void loadPeaks(url).then((p) => p && setAudioSeconds(p.duration));
    const ctl = new AbortController();
    abort.current = ctl;
    setPhase({ kind: 'uploading', sent: 0, total: file.size });
    try {
      const out = await isolateAudio(file, file.name, {
        signal: ctl.signal,
        onUploadProgress: (sent, total) => setPhase((p) => (p.kind === 'uploading' ? { kind: 'uploading', sent, total } : p)),
        onUploaded: () => {
          const since = Date.now();
          setNow(since);
          setPhase({ kind: 'processing', since });
        },
      });
      setResult({ url: URL.createObjectURL(out.audio), id: out.id, credits: out.credits });
      setPhase({ kind: 'idle' });
      void queryClient.invalidateQueries({ queryKey: isolationHistoryQueryKey });
      onIsolated?.();
    } catch (err) {
      if (ctl.signal.aborted) {
        setPhase({ kind: 'idle' });
        return;
      }
      setPhase({ kind: 'failed', message: `${file.name}: ${errorMessage(err)}` });
    } finally {
      if (abort.current === ctl) abort.current = null;
    }
  }

  const resultName = isolatedFileName(source?.name);

  return (
    <div className="mx-auto max-w-5xl p-4 sm:p-8">
      <h1 className="text-2xl font-semibold tracking-tight">Voice Isolator</h1>
      <p className="mt-1 max-w-3xl text-sm text-gray-600 dark:text-gray-400">
        Remove background noise from speech: hiss, hum, fans, traffic, room noise. The voice and the length of the audio are
        kept. It runs RNNoise, a neural noise suppressor, on this server; it does not separate one voice from other voices
        or from music. It costs {formatNumber(CREDITS_PER_MINUTE)} credits per minute of audio.
      </p>

      <div className="mt-6">
        <SourcePicker busy={busy} onFile={(f) => void isolate(f)} />
      </div>

      {phase.kind === 'uploading' && (
        <div className="mt-4 space-y-1" aria-live="polite">
          <p className="truncate text-sm">Uploading {source?.name}…</p>
          <ProgressBar label="Upload" value={phase.total > 0 ? phase.sent / phase.total : 0} testId="isolator-upload-progress" />
          <Button variant="ghost" size="sm" onClick={() => abort.current?.abort()}>
            Cancel
          </Button>
        </div>
      )}
      {phase.kind === 'processing' && (
        <div className="mt-4 space-y-1" aria-live="polite">
          <p className="flex items-center gap-2 truncate text-sm">
            <Spinner /> Isolating the voice in {source?.name}…
          </p>
          <ProgressBar
            label="Isolation (estimated)"
            value={isolationProgress((now - phase.since) / 1000, audioSeconds)}
            testId="isolator-processing-progress"
          />
        </div>
      )}
      {phase.kind === 'failed' && (
        <p role="alert" className="mt-4 flex items-start gap-2 rounded-lg bg-red-50 p-3 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
          <AlertIcon size={16} className="mt-0.5 shrink-0" />
          <span>{phase.message}</span>
        </p>
      )}

      {source && (
        <section aria-label="Before and after" className="mt-6 grid gap-4 md:grid-cols-2">
          <WaveformPlayer src={source.url} label="Original" testId="isolator-before" />
          {result ? (
            <WaveformPlayer
              src={result.url}
              label="Isolated voice"
              testId="isolator-after"
              actions={
                <a
                  href={result.url}
                  download={resultName}
                  data-testid="isolator-download"
                  className="inline-flex items-center gap-1.5 rounded-lg bg-gray-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-gray-800 dark:bg-white dark:text-gray-900 dark:hover:bg-gray-200"
                >
                  <DownloadIcon size={14} />
                  Download
                </a>
              }
            />
          ) : (
            <div className="flex min-h-40 items-center justify-center rounded-xl border border-dashed border-gray-300 p-3 text-sm text-gray-500 dark:border-gray-700">
              {busy ? 'The isolated voice will appear here.' : 'No isolated audio for this file.'}
            </div>
          )}
          {result?.credits != null && (
            <p className="text-xs text-gray-500 md:col-start-2" data-testid="isolator-cost">
              Charged {formatNumber(result.credits)} credits.
            </p>
          )}
        </section>
      )}

      <IsolationHistory />
    </div>
  );
}
