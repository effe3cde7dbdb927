import { useEffect, useRef, useState, type ReactNode } from 'react';
import { PLAYER } from '@/lib/constants';
import { formatTime } from '@/lib/format';
import { usePlayerState, usePlayerStore } from '@/lib/player';
import { cn } from '../cn';
import {
  BackIcon,
  ChevronDownIcon,
  ChevronUpIcon,
  DownloadIcon,
  ForwardIcon,
  PauseIcon,
  PlayIcon,
} from '../icons';
import { Spinner } from '../Spinner';
import { handlePlayerKeyDown } from './shortcuts';
import { Waveform } from './Waveform';

const iconButton =
  'flex size-9 shrink-0 cursor-pointer items-center justify-center rounded-full text-gray-700 hover:bg-gray-100 disabled:cursor-not-allowed disabled:opacity-40 dark:text-gray-300 dark:hover:bg-gray-800';

interface GlobalPlayerProps {
  /**
   * Feedback controls for the current item (composed in by the app layer);
   * shown after 3 s of playback or at the end (spec §4).
   */
  feedback?: ReactNode;
}

/**
 * Global audio player (spec §2, §4, §9): fixed bottom bar 5rem high,
 * collapsible to a thin progress bar; regions for title, voice, time, controls.
 * The expanded bar draws the item's waveform under the seek slider.
 */
export function GlobalPlayer({ feedback }: GlobalPlayerProps = {}) {
  const store = usePlayerStore();
  const state = usePlayerState();
  const audioRef = useRef<HTMLAudioElement>(null);
  const [waveReady, setWaveReady] = useState(false);
  const { item, status, currentTime, duration, speed, collapsed, downloading, feedbackVisible } = state;
  const canDownload = store.canDownload(state);

  useEffect(() => {
    const audio = audioRef.current;
    if (!audio) return;
    return store.attach(audio);
  }, [store]);

  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => handlePlayerKeyDown(e, store);
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [store]);

  // Let the page reserve room for the bar (and bottom-right toasts sit above it).
  useEffect(() => {
    const offset = !item ? '0px' : collapsed ? '0.375rem' : PLAYER.height;
    document.documentElement.style.setProperty('--player-offset', offset);
  }, [item, collapsed]);

  const playing = status === 'playing';
  const loading = status === 'loading';
  const max = duration > 0 ? duration : 0;
  const progress = max > 0 ? Math.min(100, (currentTime / max) * 100) : 0;

  return (
    <>
      {/* The one audio element; kept mounted so attachment survives collapse. */}
      <audio ref={audioRef} preload="auto" data-testid="player-audio" className="hidden" />
      {item && collapsed && (
        <div
          data-testid="player"
          data-state={status}
          data-collapsed="true"
          className="fixed inset-x-0 bottom-0 z-40 h-1.5 bg-gray-200 dark:bg-gray-800"
        >
          <div className="h-full bg-gray-900 transition-[width] dark:bg-white" style={{ width: `${progress}%` }} />
          <button
            type="button"
            onClick={() => store.setCollapsed(false)}
            aria-label="Expand player"
            className="absolute right-4 bottom-2 flex h-7 cursor-pointer items-center gap-1 rounded-full border border-gray-200 bg-white px-3 text-xs font-medium shadow-md dark:border-gray-700 dark:bg-gray-900"
          >
            <ChevronUpIcon size={14} />
            {playing ? 'Playing' : 'Player'}
          </button>
        </div>
      )}
      {item && !collapsed && (
        <section
          aria-label="Audio player"
          data-testid="player"
          data-state={status}
          className="fixed inset-x-0 bottom-0 z-40 flex h-20 items-center gap-3 border-t border-gray-200 bg-white/95 px-3 backdrop-blur sm:gap-6 sm:px-6 dark:border-gray-800 dark:bg-gray-950/95"
        >
          <div className="hidden min-w-0 flex-1 md:block" data-region="title">
            <p className="truncate text-sm font-medium" title={item.title}>
              {item.title}
            </p>
            {item.voiceName && (
              <p className="truncate text-xs text-gray-500 dark:text-gray-400" data-region="voice">
                {item.voiceName}
              </p>
            )}
          </div>

          <div className="flex min-w-0 flex-[2] flex-col items-center gap-1" data-region="controls">
            <div className="flex items-center gap-1 sm:gap-2">
              <button
                type="button"
                className={iconButton}
                onClick={() => store.skip(-PLAYER.buttonSkipSeconds)}
                aria-label={`Back ${PLAYER.buttonSkipSeconds} seconds`}
              >
                <BackIcon size={16} />
              </button>
              <button
                type="button"
                data-testid="player-play"
                onClick={() => store.toggle()}
                aria-label={playing ? 'Pause' : 'Play'}
                className="flex size-9 cursor-pointer items-center justify-center rounded-full bg-gray-900 text-white hover:bg-gray-700 dark:bg-white dark:text-gray-900 dark:hover:bg-gray-200"
              >
                {loading ? <Spinner /> : playing ? <PauseIcon size={16} /> : <PlayIcon size={16} />}
              </button>
              <button
                type="button"
                className={iconButton}
                onClick={() => store.skip(PLAYER.buttonSkipSeconds)}
                aria-label={`Forward ${PLAYER.buttonSkipSeconds} seconds`}
              >
                <ForwardIcon size={16} />
              </button>
            </div>
            <div className="flex w-full max-w-xl items-center gap-2" data-region="time">
              <span className="w-10 text-right text-xs tabular-nums text-gray-500 dark:text-gray-400">
                {formatTime(currentTime)}
              </span>
              <div className="relative h-7 min-w-0 flex-1 rounded-md has-[input:focus-visible]:outline-2 has-[input:focus-visible]:outline-offset-2 has-[input:focus-visible]:outline-indigo-500">
                <Waveform
                  key={item.src}
                  src={item.src}
                  progress={progress / 100}
                  onReadyChange={setWaveReady}
                  className="absolute inset-0"
                />
                <input
                  type="range"
                  aria-label="Seek"
                  min={0}
                  max={max || 0}
                  step={PLAYER.progressStep}
                  value={Math.min(currentTime, max || 0)}
                  onChange={(e) => store.seek(Number(e.target.value))}
                  disabled={!max}
                  className={cn(
                    'absolute inset-x-0 top-1/2 w-full -translate-y-1/2 cursor-pointer disabled:cursor-default',
                    waveReady ? 'h-full opacity-0 focus-visible:outline-none' : 'h-1',
                  )}
                />
              </div>
              <span className="w-10 text-xs tabular-nums text-gray-500 dark:text-gray-400">{formatTime(duration)}</span>
              <span data-testid="player-time" className="sr-only">
                {formatTime(currentTime)} / {formatTime(duration)}
              </span>
            </div>
          </div>

          <div className="flex flex-1 items-center justify-end gap-1 sm:gap-2">
            {feedback && feedbackVisible && (
              <div data-testid="player-feedback" className="flex items-center gap-0.5 sm:mr-1">
                {feedback}
              </div>
            )}
            <label className="sr-only" htmlFor="player-speed">
              Playback speed
            </label>
            <select
              id="player-speed"
              value={String(speed)}
              onChange={(e) => store.setSpeed(Number(e.target.value))}
              className="hidden h-8 cursor-pointer rounded-md border border-gray-200 bg-transparent px-1.5 text-xs sm:block dark:border-gray-700 dark:bg-gray-900"
            >
              {PLAYER.speeds.map((s) => (
                <option key={s} value={String(s)}>
                  {s}x
                </option>
              ))}
            </select>
            <button
              type="button"
              data-testid="player-download"
              className={iconButton}
              onClick={() => void store.download().catch(() => undefined)}
              disabled={!canDownload}
              aria-label="Download"
            >
              {downloading ? <Spinner /> : <DownloadIcon size={16} />}
            </button>
            <button
              type="button"
              className={cn(iconButton)}
              onClick={() => store.setCollapsed(true)}
              aria-label="Collapse player"
            >
              <ChevronDownIcon size={16} />
            </button>
          </div>
        </section>
      )}
    </>
  );
}
