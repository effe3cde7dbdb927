import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { Button } from '@/components/Button';
import { TextArea } from '@/components/Field';
import { DownloadIcon } from '@/components/icons';
import { formatNumber } from '@/lib/format';
import {
  DEFAULT_INFLUENCE,
  errorMessage,
  estimatedCredits,
  generateSound,
  MAX_DURATION,
  MAX_TEXT,
  MIN_DURATION,
  soundFileName,
  soundHistoryQueryKey,
  VARIATIONS,
  variationSeeds,
  type Generated,
} from '../api';

interface Variation extends Omit<Generated, 'audio'> {
  url: string;
}

const linkButton =
  'inline-flex h-8 items-center gap-1.5 rounded-lg px-3 text-sm font-medium text-gray-700 hover:bg-gray-100 dark:text-gray-300 dark:hover:bg-gray-800';

/** The prompt, duration (auto or a slider), loop and prompt influence; four variations per click. */
export function Generator({ onGenerated }: { onGenerated?: () => void }) {
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const [text, setText] = useState(params.get('prompt') ?? '');
  const initialDuration = Number(params.get('duration'));
  const [auto, setAuto] = useState(!(initialDuration >= MIN_DURATION));
  const [duration, setDuration] = useState(initialDuration >= MIN_DURATION ? Math.min(MAX_DURATION, initialDuration) : 5);
  const [loop, setLoop] = useState(params.get('loop') === 'true');
  const [influence, setInfluence] = useState(DEFAULT_INFLUENCE);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [results, setResults] = useState<Variation[]>([]);
  const urls = useRef<string[]>([]);
  useEffect(() => () => urls.current.forEach((u) => URL.revokeObjectURL(u)), []);

  const trimmed = text.trim();
  const tooLong = text.length > MAX_TEXT;
  const each = estimatedCredits(auto ? null : duration);

  async function generate(e: FormEvent) {
    e.preventDefault();
    if (busy || !trimmed || tooLong) return;
    setBusy(true);
    setError(null);
    try {
      const seeds = variationSeeds();
      const out = await Promise.allSettled(
        seeds.map((seed) =>
          generateSound({ text: trimmed, durationSeconds: auto ? null : duration, loop, promptInfluence: influence, seed }),
        ),
      );
      urls.current.forEach((u) => URL.revokeObjectURL(u));
      const made: Variation[] = [];
      for (const o of out) {
        if (o.status === 'fulfilled') {
          const { audio, ...rest } = o.value;
          made.push({ ...rest, url: URL.createObjectURL(audio) });
        }
      }
      urls.current = made.map((m) => m.url);
      setResults(made);
      const failed = out.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) setError(errorMessage(failed.reason));
      if (made.length > 0) {
        void queryClient.invalidateQueries({ queryKey: soundHistoryQueryKey });
        onGenerated?.();
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <div>
      <form noValidate onSubmit={(e) => void generate(e)} aria-label="Generate sound effects" className="space-y-4">
        <div>
          <label htmlFor="sfx-prompt" className="text-sm font-medium">
            Describe the sound
          </label>
          <TextArea
            id="sfx-prompt"
            rows={3}
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="Heavy rain on a tin roof with distant thunder"
            aria-invalid={tooLong || undefined}
            className="mt-1"
          />
          <p className={`mt-1 text-xs ${tooLong ? 'text-red-700 dark:text-red-300' : 'text-gray-500'}`}>
            {text.length} / {MAX_TEXT}
          </p>
        </div>
        <div className="grid gap-4 sm:grid-cols-3">
          <fieldset>
            <legend className="text-sm font-medium">Duration</legend>
            <label className="mt-1 flex items-center gap-2 text-sm">
              <input type="checkbox" checked={auto} onChange={(e) => setAuto(e.target.checked)} />
              Automatic (picked for the scene)
            </label>
            <input
              type="range"
              aria-label="Duration in seconds"
              min={MIN_DURATION}
              max={MAX_DURATION}
              step={0.5}
              value={duration}
              disabled={auto}
              onChange={(e) => setDuration(Number(e.target.value))}
              className="mt-2 w-full"
            />
            <p className="text-xs text-gray-500">{auto ? 'Automatic' : `${duration.toFixed(1)} s`}</p>
          </fieldset>
          <fieldset>
            <legend className="text-sm font-medium">Prompt influence</legend>
            <input
              type="range"
              aria-label="Prompt influence"
              min={0}
              max={1}
              step={0.05}
              value={influence}
              onChange={(e) => setInfluence(Number(e.target.value))}
              className="mt-3 w-full"
            />
            <p className="text-xs text-gray-500">
              {Math.round(influence * 100)}% — lower varies the sound more between variations
            </p>
          </fieldset>
          <fieldset>
            <legend className="text-sm font-medium">Loop</legend>
            <label className="mt-1 flex items-center gap-2 text-sm">
              <input type="checkbox" checked={loop} onChange={(e) => setLoop(e.target.checked)} />
              Seamless loop
            </label>
          </fieldset>
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" loading={busy} disabled={!trimmed || tooLong}>
            Generate {VARIATIONS} variations
          </Button>
          <span className="text-xs text-gray-500">
            {each != null
              ? `About ${formatNumber(each * VARIATIONS)} credits (${formatNumber(each)} each, 40 per second).`
              : '40 credits per second of sound made.'}
          </span>
        </div>
      </form>
      {error && (
        <p role="alert" className="mt-4 text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
      {results.length > 0 && (
        <section aria-label="Variations" className="mt-6 grid gap-3 sm:grid-cols-2">
          {results.map((r, i) => (
            <div key={r.url} data-testid="sfx-variation" className="rounded-xl border border-gray-200 p-3 dark:border-gray-800">
              <div className="flex items-center justify-between gap-2">
                <p className="text-sm font-medium">Variation {i + 1}</p>
                <a href={r.url} download={soundFileName(trimmed, 'mp3', i + 1)} className={linkButton} aria-label={`Download variation ${i + 1}`}>
                  <DownloadIcon size={14} />
                  Download
                </a>
              </div>
              <audio controls src={r.url} loop={loop} className="mt-2 w-full" aria-label={`Variation ${i + 1}`} />
              <p className="mt-1 text-xs text-gray-500">
                Recipes: {r.recipes.join(', ') || 'remote engine'} · seed {r.seed}
                {r.credits != null && ` · ${formatNumber(r.credits)} credits`}
              </p>
            </div>
          ))}
        </section>
      )}
    </div>
  );
}
