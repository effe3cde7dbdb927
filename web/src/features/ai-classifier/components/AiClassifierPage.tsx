import { useRef, useState, type DragEvent } from 'react';
import { Button } from '@/components/Button';
import { cn } from '@/components/cn';
import { AlertIcon, CheckIcon } from '@/components/icons';
import { Spinner } from '@/components/Spinner';
import { httpErrorMessage, isApiError } from '@/lib/api';
import { classifyAudio, formatProbability, verdictTitle, type ClassifierResult } from '../api';

type State =
  | { step: 'idle' }
  | { step: 'uploading'; name: string; sent: number }
  | { step: 'done'; name: string; result: ClassifierResult }
  | { step: 'failed'; name: string; message: string };

/** /app/ai-classifier: drop or choose a file, see whether this server's watermark is in it. */
export function AiClassifierPage() {
  const [state, setState] = useState<State>({ step: 'idle' });
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const busy = state.step === 'uploading';

  async function check(file: File) {
    setState({ step: 'uploading', name: file.name, sent: 0 });
    try {
      const result = await classifyAudio(file, (sent) =>
        setState((s) => (s.step === 'uploading' ? { ...s, sent } : s)),
      );
      setState({ step: 'done', name: file.name, result });
    } catch (err) {
      // 4xx answers say what was wrong with the file (too short, not audio, too large).
      const message = isApiError(err) ? httpErrorMessage(err) : err instanceof Error ? err.message : String(err);
      setState({ step: 'failed', name: file.name, message });
    }
  }

  function onDrop(e: DragEvent) {
    e.preventDefault();
    setDragging(false);
    const file = e.dataTransfer.files[0];
    if (file && !busy) void check(file);
  }

  return (
    <div className="mx-auto max-w-3xl p-4 sm:p-8">
      <h1 className="text-2xl font-semibold tracking-tight">AI Speech Classifier</h1>
      <p className="mt-1 text-sm text-gray-600 dark:text-gray-400">
        Did this Timbre server make this recording? Upload audio or video to look for the inaudible watermark that every
        speech this server generates carries.
      </p>

      <div
        data-testid="classifier-dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        className={cn(
          'mt-6 flex flex-col items-center justify-center gap-3 rounded-2xl border-2 border-dashed p-10 text-center transition-colors',
          dragging ? 'border-gray-900 bg-gray-50 dark:border-white dark:bg-gray-900' : 'border-gray-300 dark:border-gray-700',
        )}
      >
        <p className="text-sm font-medium">Drop an audio or video file here</p>
        <p className="text-xs text-gray-500">mp3, wav, ogg, m4a, webm, … at least half a second long</p>
        <Button variant="outline" onClick={() => input.current?.click()} disabled={busy}>
          Choose a file
        </Button>
        <input
          ref={input}
          type="file"
          accept="audio/*,video/*"
          className="sr-only"
          aria-label="Audio file"
          data-testid="classifier-file"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = ''; // the same file may be chosen again
            if (file) void check(file);
          }}
        />
      </div>

      {state.step === 'uploading' && (
        <div className="mt-6" aria-live="polite">
          <div className="flex items-center gap-2 text-sm">
            <Spinner />
            {state.sent < 1 ? `Uploading ${state.name}…` : `Looking for the watermark in ${state.name}…`}
          </div>
          <progress
            className="mt-2 h-2 w-full"
            max={1}
            value={state.sent}
            aria-label="Upload progress"
          />
        </div>
      )}

      {state.step === 'failed' && (
        <p role="alert" className="mt-6 flex items-start gap-2 text-sm text-red-600">
          <AlertIcon size={16} className="mt-0.5" />
          <span>
            {state.name}: {state.message}
          </span>
        </p>
      )}

      {state.step === 'done' && <Verdict name={state.name} result={state.result} />}

      <section className="mt-8 rounded-xl bg-gray-50 p-4 text-sm text-gray-600 dark:bg-gray-900 dark:text-gray-400">
        <h2 className="font-medium text-gray-900 dark:text-gray-100">What this check means</h2>
        <p className="mt-1">
          It finds this server&rsquo;s own watermark, which survives mp3 compression, resampling, volume changes and cutting
          to a few seconds, but not a later conversion to 8 kHz telephone audio (speech Timbre delivers at 8 kHz
          carries a mark of its own). It is not a general AI-speech detector: speech made by other services, by other Timbre
          servers, or edited heavily will show &ldquo;No Timbre watermark found&rdquo; even if a machine made it. The
          check is free and the file is not kept.
        </p>
      </section>
    </div>
  );
}

function Verdict({ name, result }: { name: string; result: ClassifierResult }) {
  const found = result.watermark_detected;
  return (
    <section
      data-testid="classifier-verdict"
      aria-live="polite"
      className={cn(
        'mt-6 rounded-2xl border p-6',
        found ? 'border-emerald-300 bg-emerald-50 dark:border-emerald-800 dark:bg-emerald-950' : 'border-gray-200 dark:border-gray-800',
      )}
    >
      <p className="text-xs text-gray-500">{name}</p>
      <h2 className="mt-1 flex items-center gap-2 text-xl font-semibold">
        {found && <CheckIcon size={20} />}
        {verdictTitle(result)}
      </h2>
      <dl className="mt-4 grid gap-4 text-sm sm:grid-cols-3">
        <div>
          <dt className="text-xs font-medium text-gray-500 uppercase">Probability made here</dt>
          <dd className="mt-1 text-lg font-semibold tabular-nums" data-testid="classifier-probability">
            {formatProbability(result.ai_generated_probability)}
          </dd>
        </div>
        <div>
          <dt className="text-xs font-medium text-gray-500 uppercase">Watermark score</dt>
          <dd className="mt-1 text-lg font-semibold tabular-nums">
            {result.watermark_score.toFixed(1)}
            <span className="text-xs font-normal text-gray-500"> (found from {result.watermark_threshold.toFixed(0)})</span>
          </dd>
        </div>
        <div>
          <dt className="text-xs font-medium text-gray-500 uppercase">Length checked</dt>
          <dd className="mt-1 text-lg font-semibold tabular-nums">
            {result.analyzed_secs.toFixed(1)} s
            {result.analyzed_secs < result.duration_secs && (
              <span className="text-xs font-normal text-gray-500"> of {result.duration_secs.toFixed(1)} s</span>
            )}
          </dd>
        </div>
      </dl>
    </section>
  );
}
