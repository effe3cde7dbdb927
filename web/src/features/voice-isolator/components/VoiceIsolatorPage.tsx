import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { DownloadIcon } from '@/components/icons';
import { UploadProgress } from '@/components/upload/UploadProgress';
import { useUpload } from '@/components/upload/useUpload';
import { formatNumber } from '@/lib/format';
import { forgetPeaks, loadPeaks } from '@/lib/player/peaks';
import { isolateAudio, isolationHistoryQueryKey } from '../api';
import { checkFile, CREDITS_PER_MINUTE, errorMessage, isolatedFileName, isolationProgress } from '../api/model';
import { IsolationHistory } from './IsolationHistory';
import { SourcePicker } from './SourcePicker';
import { WaveformPlayer } from '@/components/player/WaveformPlayer';

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

/**
 * /app/voice-isolator: upload, drop or record audio; the server removes the background noise;
 * the original and the isolated voice play side by side with their waveforms; the result
 * downloads and stays in the history below. onIsolated runs after each charged isolation (the
 * app layer refreshes the credits shown elsewhere).
 */
export function VoiceIsolatorPage({ onIsolated }: { onIsolated?: () => void } = {}) {
  const queryClient = useQueryClient();
  const upload = useUpload(errorMessage);
  const [source, setSource] = useObjectUrl<Source>();
  const [result, setResult] = useObjectUrl<Result>();
  const [audioSeconds, setAudioSeconds] = useState<number>();
  const busy = upload.busy;

  async function isolate(file: File) {
    if (busy) return;
    const refused = checkFile(file);
    setResult(null);
    if (refused) {
      setSource(null);
      upload.fail(file.name, refused);
      return;
    }
    const url = URL.createObjectURL(file);
    setSource({ name: file.name, url });
    setAudioSeconds(undefined);
    // The same decode draws the original's waveform; its duration feeds the progress estimate.
    void loadPeaks(url).then((p) => p && setAudioSeconds(p.duration));
    const out = await upload.run(file.name, file.size, (hooks) => isolateAudio(file, file.name, hooks));
    if (!out) return;
    setResult({ url: URL.createObjectURL(out.audio), id: out.id, credits: out.credits });
    void queryClient.invalidateQueries({ queryKey: isolationHistoryQueryKey });
    onIsolated?.();
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

      <div className="mt-4">
        <UploadProgress
          phase={upload.phase}
          onCancel={upload.cancel}
          processingText={(name) => `Isolating the voice in ${name}…`}
          processingLabel="Isolation (estimated)"
          estimate={(elapsed) => isolationProgress(elapsed, audioSeconds)}
          testIds={{ upload: 'isolator-upload-progress', processing: 'isolator-processing-progress' }}
        />
      </div>

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
