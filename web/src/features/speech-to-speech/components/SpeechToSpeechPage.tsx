import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Button } from '@/components/Button';
import { AlertIcon, DownloadIcon, MicIcon } from '@/components/icons';
import { Spinner } from '@/components/Spinner';
import { formatNumber } from '@/lib/format';
import { canRecord } from '@/lib/recording';
import { useRecorder } from '@/lib/useRecorder';
import {
  ACCEPTED_FILES,
  checkFile,
  convertedFileName,
  convertSpeech,
  CREDITS_PER_MINUTE,
  errorMessage,
  getStsHistory,
  getVoices,
  historyAudioUrl,
  MAX_RECORDING_SECONDS,
  STS_MODELS,
  stsHistoryQueryKey,
  voicesQueryKey,
} from '../api';

interface Result {
  url: string;
  name: string;
  credits: number | null;
}

/**
 * /app/speech-synthesis/speech-to-speech: upload or record a recording, pick a voice, convert;
 * the result plays and downloads, and the conversions stay in the history below (history items
 * with source STS). onConverted runs after each charged conversion (the app refreshes credits).
 */
export function SpeechToSpeechPage({ onConverted }: { onConverted?: () => void } = {}) {
  const queryClient = useQueryClient();
  const voices = useQuery({ queryKey: voicesQueryKey, queryFn: getVoices });
  const history = useQuery({ queryKey: stsHistoryQueryKey, queryFn: getStsHistory });
  const [file, setFile] = useState<File | null>(null);
  const [sourceUrl, setSourceUrl] = useState<string | null>(null);
  const [voiceId, setVoiceId] = useState('');
  const [modelId, setModelId] = useState<string>(STS_MODELS[0].id);
  const [denoise, setDenoise] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<Result | null>(null);
  const [recordable] = useState(canRecord);
  const abort = useRef<AbortController | null>(null);
  const recorder = useRecorder((f) => choose(f), MAX_RECORDING_SECONDS);
  const recording = recorder.state.kind === 'recording' || recorder.state.kind === 'starting';

  const voiceList = voices.data?.voices;
  const voice = voiceList?.find((v) => v.voice_id === voiceId);
  useEffect(() => {
    if (!voiceId && voiceList?.length) setVoiceId(voiceList[0].voice_id);
  }, [voiceId, voiceList]);
  // Object URLs are released when replaced or on leaving the page.
  useEffect(() => () => void (sourceUrl && URL.revokeObjectURL(sourceUrl)), [sourceUrl]);
  useEffect(() => () => void (result && URL.revokeObjectURL(result.url)), [result]);
  useEffect(() => () => abort.current?.abort(), []);

  function choose(f: File) {
    setResult(null);
    const refused = checkFile(f);
    if (refused) {
      setFile(null);
      setSourceUrl(null);
      setError(`${f.name}: ${refused}`);
      return;
    }
    setError(null);
    setFile(f);
    setSourceUrl(URL.createObjectURL(f));
  }

  async function convert() {
    if (!file || !voiceId || busy) return;
    const ctl = new AbortController();
    abort.current = ctl;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const out = await convertSpeech(file, file.name, voiceId, { modelId, removeBackgroundNoise: denoise, signal: ctl.signal });
      setResult({ url: URL.createObjectURL(out.audio), name: convertedFileName(file.name, voice?.name ?? ''), credits: out.credits });
      void queryClient.invalidateQueries({ queryKey: stsHistoryQueryKey });
      onConverted?.();
    } catch (err) {
      if (!ctl.signal.aborted) setError(`${file.name}: ${errorMessage(err)}`);
    } finally {
      if (abort.current === ctl) abort.current = null;
      setBusy(false);
    }
  }

  const items = history.data?.history ?? [];

  return (
    <div className="mx-auto max-w-5xl p-4 sm:p-8">
      <h1 className="text-2xl font-semibold tracking-tight">Speech to Speech</h1>
      <p className="mt-1 max-w-3xl text-sm text-gray-600 dark:text-gray-400">
        Say a recording in another voice: the words, timing and intonation stay yours; the pitch and the vocal tract move
        to the voice you pick. This server converts parametrically (pitch and formant shifting measured from both
        voices), not with a neural model: the result keeps your accent and manner. It costs{' '}
        {formatNumber(CREDITS_PER_MINUTE)} credits per minute of recording.
      </p>

      <section aria-label="Recording" className="mt-6 space-y-3 rounded-2xl border border-dashed border-gray-300 p-6 dark:border-gray-700">
        <div className="flex flex-wrap items-center gap-2">
          <label className="inline-flex cursor-pointer items-center rounded-lg border border-gray-300 px-3 py-1.5 text-sm font-medium hover:bg-gray-50 dark:border-gray-700 dark:hover:bg-gray-900">
            Choose a file
            <input
              type="file"
              accept={ACCEPTED_FILES}
              className="sr-only"
              aria-label="Recording file"
              data-testid="sts-file"
              disabled={busy || recording}
              onChange={(e) => {
                const f = e.target.files?.[0];
                e.target.value = '';
                if (f) choose(f);
              }}
            />
          </label>
          {recordable && !recording && (
            <Button variant="outline" onClick={() => void recorder.start()} disabled={busy}>
              <MicIcon size={16} />
              Record
            </Button>
          )}
          {recording && (
            <>
              <span role="status" className="text-sm text-red-700 dark:text-red-300">
                {recorder.state.kind === 'starting' ? 'Opening the microphone…' : 'Recording…'}
              </span>
              <Button size="sm" onClick={recorder.stop} disabled={recorder.state.kind !== 'recording'}>
                Stop
              </Button>
              <Button size="sm" variant="ghost" onClick={recorder.cancel}>
                Discard
              </Button>
            </>
          )}
        </div>
        {recorder.state.kind === 'failed' && (
          <p role="alert" className="text-sm text-red-700 dark:text-red-300">
            {recorder.state.message}
          </p>
        )}
        {file && sourceUrl && (
          <div>
            <p className="truncate text-sm font-medium">{file.name}</p>
            <audio controls src={sourceUrl} className="mt-1 w-full" data-testid="sts-source" />
          </div>
        )}
      </section>

      <section aria-label="Voice" className="mt-4 flex flex-wrap items-end gap-4">
        <label className="text-sm">
          <span className="mb-1 block font-medium">Voice</span>
          <select
            className="rounded-lg border border-gray-300 bg-white px-3 py-1.5 dark:border-gray-700 dark:bg-gray-950"
            value={voiceId}
            onChange={(e) => setVoiceId(e.target.value)}
            data-testid="sts-voice"
            aria-label="Voice"
          >
            {(voiceList ?? []).map((v) => (
              <option key={v.voice_id} value={v.voice_id}>
                {v.name}
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm">
          <span className="mb-1 block font-medium">Model</span>
          <select
            className="rounded-lg border border-gray-300 bg-white px-3 py-1.5 dark:border-gray-700 dark:bg-gray-950"
            value={modelId}
            onChange={(e) => setModelId(e.target.value)}
            aria-label="Model"
          >
            {STS_MODELS.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={denoise} onChange={(e) => setDenoise(e.target.checked)} />
          Remove background noise
        </label>
        <Button onClick={() => void convert()} disabled={!file || !voiceId || busy || recording} data-testid="sts-convert">
          {busy ? <Spinner /> : null}
          {busy ? 'Converting…' : 'Convert'}
        </Button>
      </section>

      {error && (
        <p role="alert" className="mt-4 flex items-start gap-2 rounded-lg bg-red-50 p-3 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
          <AlertIcon size={16} className="mt-0.5 shrink-0" />
          <span>{error}</span>
        </p>
      )}

      {result && (
        <section aria-label="Converted" className="mt-6 rounded-xl border border-gray-200 p-4 dark:border-gray-800">
          <p className="text-sm font-medium">In {voice?.name ?? 'the chosen voice'}</p>
          <audio controls autoPlay src={result.url} className="mt-2 w-full" data-testid="sts-result" />
          <div className="mt-2 flex items-center gap-3">
            <a
              href={result.url}
              download={result.name}
              data-testid="sts-download"
              className="inline-flex items-center gap-1.5 rounded-lg bg-gray-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-gray-800 dark:bg-white dark:text-gray-900 dark:hover:bg-gray-200"
            >
              <DownloadIcon size={14} />
              Download
            </a>
            {result.credits != null && (
              <span className="text-xs text-gray-500" data-testid="sts-cost">
                Charged {formatNumber(result.credits)} credits.
              </span>
            )}
          </div>
        </section>
      )}

      <section aria-label="History" className="mt-8">
        <h2 className="text-lg font-semibold">History</h2>
        {history.isLoading && <Spinner />}
        {history.isError && <p className="text-sm text-red-700">The history could not be loaded.</p>}
        {history.isSuccess && items.length === 0 && <p className="text-sm text-gray-500">No conversions yet.</p>}
        <ul className="mt-2 divide-y divide-gray-200 dark:divide-gray-800" data-testid="sts-history">
          {items.map((h) => (
            <li key={h.history_item_id} className="flex flex-wrap items-center gap-3 py-2">
              <div className="min-w-40 flex-1">
                <p className="truncate text-sm font-medium">{h.text || 'Recording'}</p>
                <p className="text-xs text-gray-500">
                  {h.voice_name} · {new Date(h.date_unix * 1000).toLocaleString()}
                </p>
              </div>
              <audio controls preload="none" src={historyAudioUrl(h.history_item_id)} aria-label={`Play ${h.text || 'recording'}`} />
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
