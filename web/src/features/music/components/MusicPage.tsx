import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Button } from '@/components/Button';
import { inputClass } from '@/components/Field';
import { DownloadIcon } from '@/components/icons';
import { WaveformPlayer } from '@/components/player/WaveformPlayer';
import { formatNumber } from '@/lib/format';
import { forgetPeaks } from '@/lib/player/peaks';
import {
  composeMusic,
  CREDITS_PER_MINUTE,
  errorMessage,
  MAX_LENGTH_MS,
  MIN_LENGTH_MS,
  musicHistoryQueryKey,
  planProblem,
  songCredits,
  songFileName,
  writePlan,
  planDurationMs,
  type MusicPlan,
  type SongItem,
} from '../api';
import { MusicHistory } from './MusicHistory';
import { PlanEditor } from './PlanEditor';

interface Result {
  url: string;
  songId: string | null;
  credits: number | null;
  title: string;
}

const label = 'mb-1.5 block text-sm font-medium text-gray-800 dark:text-gray-200';

/**
 * /app/music: a prompt and a length; "Write a plan" shows the composition plan to edit (styles,
 * sections); "Compose" makes the song (from the plan when there is one), which plays with its
 * waveform, downloads, and stays in the history below. onComposed runs after each charged song.
 */
export function MusicPage({ onComposed }: { onComposed?: () => void } = {}) {
  const queryClient = useQueryClient();
  const [prompt, setPrompt] = useState('');
  const [seconds, setSeconds] = useState(30);
  const [seed, setSeed] = useState('');
  const [plan, setPlan] = useState<MusicPlan | null>(null);
  const [result, setResultState] = useState<Result | null>(null);
  const current = useRef<Result | null>(null);
  const setResult = (next: Result | null) => {
    const old = current.current;
    if (old && old.url !== next?.url) {
      URL.revokeObjectURL(old.url);
      forgetPeaks(old.url);
    }
    current.current = next;
    setResultState(next);
  };
  useEffect(() => () => setResult(null), []);

  const lengthMs = Math.round(seconds * 1000);
  const lengthOK = lengthMs >= MIN_LENGTH_MS && lengthMs <= MAX_LENGTH_MS;
  const seedValue = seed.trim() === '' ? undefined : Number(seed);
  const seedOK = seedValue === undefined || (Number.isInteger(seedValue) && seedValue >= 0 && seedValue <= 2147483647);

  const planning = useMutation({
    mutationFn: () => writePlan(prompt.trim(), lengthMs),
    onSuccess: (p) => setPlan(p),
  });
  const composing = useMutation({
    mutationFn: () => (plan ? composeMusic({ plan, seed: seedValue }) : composeMusic({ prompt: prompt.trim(), lengthMs, seed: seedValue })),
    onSuccess: (out) => {
      setResult({ url: URL.createObjectURL(out.blob), songId: out.songId, credits: out.credits, title: prompt.trim() || 'Song' });
      void queryClient.invalidateQueries({ queryKey: musicHistoryQueryKey });
      onComposed?.();
    },
  });
  const busy = planning.isPending || composing.isPending;
  const problem = plan ? planProblem(plan) : null;
  const canCompose = !busy && seedOK && (plan ? problem === null : prompt.trim() !== '' && lengthOK);
  const cost = songCredits(plan ? planDurationMs(plan) : lengthMs);

  function reuse(item: SongItem) {
    if (!item.composition_plan) return;
    setPlan(item.composition_plan);
    setSeed(String(item.seed));
    if (item.prompt) setPrompt(item.prompt);
    window.scrollTo?.({ top: 0, behavior: 'smooth' });
  }

  return (
    <div className="mx-auto max-w-5xl p-4 sm:p-8">
      <h1 className="text-2xl font-semibold tracking-tight">Music</h1>
      <p className="mt-1 max-w-3xl text-sm text-gray-600 dark:text-gray-400">
        Compose instrumental music from a description. The built-in engine is algorithmic, not a neural model: it turns the styles
        into a tempo, key, mode and instruments, writes chords, bass, melody and drums for each section as MIDI, plays them on a
        General MIDI soundfont (FluidR3 with FluidSynth) and masters the result to −14 LUFS. Lyrics (a plan’s lines) are sung by a
        speech engine: each word spoken at its melody note’s pitch and stretched to the notes — robotic, not a trained singer. It costs{' '}
        {formatNumber(CREDITS_PER_MINUTE)} credits per minute of music.
      </p>

      <div className="mt-6 grid gap-4 md:grid-cols-[1fr_auto_auto]">
        <div>
          <label htmlFor="music-prompt" className={label}>
            Describe the music
          </label>
          <textarea
            id="music-prompt"
            rows={3}
            maxLength={4100}
            className={inputClass}
            placeholder="An upbeat jazz tune in D minor with saxophone, 132 bpm"
            value={prompt}
            disabled={busy}
            onChange={(e) => setPrompt(e.target.value)}
          />
        </div>
        <div className="w-32">
          <label htmlFor="music-length" className={label}>
            Length (s)
          </label>
          <input
            id="music-length"
            type="number"
            min={3}
            max={600}
            className={inputClass}
            value={seconds}
            disabled={busy || plan !== null}
            aria-invalid={!lengthOK}
            onChange={(e) => setSeconds(Number(e.target.value))}
          />
          {plan && <p className="mt-1 text-xs text-gray-500">Set by the plan’s sections.</p>}
        </div>
        <div className="w-36">
          <label htmlFor="music-seed" className={label}>
            Seed (optional)
          </label>
          <input id="music-seed" inputMode="numeric" className={inputClass} value={seed} disabled={busy} aria-invalid={!seedOK} placeholder="random" onChange={(e) => setSeed(e.target.value)} />
          <p className="mt-1 text-xs text-gray-500">The same seed and plan give the same song.</p>
        </div>
      </div>

      <div className="mt-4 flex flex-wrap items-center gap-2">
        <Button variant="secondary" disabled={busy || prompt.trim() === '' || !lengthOK} loading={planning.isPending} onClick={() => planning.mutate()}>
          {plan ? 'Write a new plan' : 'Write a plan'}
        </Button>
        <Button disabled={!canCompose} loading={composing.isPending} onClick={() => composing.mutate()}>
          {plan ? 'Compose from the plan' : 'Compose'}
        </Button>
        {plan && (
          <Button variant="ghost" disabled={busy} onClick={() => setPlan(null)}>
            Discard the plan
          </Button>
        )}
        <span className="text-xs text-gray-500" data-testid="music-cost">
          {formatNumber(cost)} credits
        </span>
      </div>
      {(planning.isError || composing.isError || problem) && (
        <p role="alert" className="mt-3 text-sm text-red-700 dark:text-red-300">
          {problem ?? errorMessage(planning.error ?? composing.error)}
        </p>
      )}
      {composing.isPending && <p className="mt-3 text-sm text-gray-500">Composing and playing the song…</p>}

      {plan && (
        <div className="mt-6">
          <PlanEditor plan={plan} onChange={setPlan} disabled={busy} />
        </div>
      )}

      {result && (
        <section aria-label="Your song" className="mt-6">
          <WaveformPlayer
            src={result.url}
            label={result.title}
            testId="music-result"
            actions={
              <a
                href={result.url}
                download={songFileName(result.title)}
                data-testid="music-download"
                className="inline-flex items-center gap-1.5 rounded-lg bg-gray-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-gray-800 dark:bg-white dark:text-gray-900 dark:hover:bg-gray-200"
              >
                <DownloadIcon size={14} />
                Download
              </a>
            }
          />
          {result.credits != null && (
            <p className="mt-1 text-xs text-gray-500" data-testid="music-charged">
              Charged {formatNumber(result.credits)} credits.
            </p>
          )}
        </section>
      )}

      <MusicHistory onReuse={reuse} />
    </div>
  );
}
