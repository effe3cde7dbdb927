import { useEffect, useRef, useState, type ReactNode } from 'react';
import { cn } from '@/components/cn';
import { Waveform } from '@/components/player/Waveform';
import { formatTime } from '@/lib/format';
import { canDrawWaveform, loadPeaks } from '@/lib/player/peaks';

interface WaveformPlayerProps {
  src: string;
  label: string;
  testId: string;
  /** Beside the label (a download link, a note). */
  actions?: ReactNode;
  autoPlay?: boolean;
  className?: string;
}

/**
 * An audio player with the audio's waveform: the picture is decoded in the browser (Web Audio's
 * decodeAudioData, through the shared peaks cache) and drawn on a canvas by the shared Waveform;
 * a click or drag on it seeks. The <audio> element plays and keeps the time.
 */
export function WaveformPlayer({ src, label, testId, actions, autoPlay, className }: WaveformPlayerProps) {
  const audio = useRef<HTMLAudioElement>(null);
  const [time, setTime] = useState(0);
  const [mediaDuration, setMediaDuration] = useState(0);
  const [decodedDuration, setDecodedDuration] = useState(0);
  const [waveReady, setWaveReady] = useState(false);
  const [undrawable, setUndrawable] = useState(() => !canDrawWaveform());

  // The decoded duration also stands in for the element's when a recording's WebM carries none
  // (MediaRecorder writes no duration, so the element reports Infinity).
  useEffect(() => {
    let cancelled = false;
    setDecodedDuration(0);
    if (!canDrawWaveform()) return;
    setUndrawable(false);
    void loadPeaks(src).then((p) => {
      if (cancelled) return;
      if (p) setDecodedDuration(p.duration);
      else setUndrawable(true);
    });
    return () => {
      cancelled = true;
    };
  }, [src]);

  const duration = Number.isFinite(mediaDuration) && mediaDuration > 0 ? mediaDuration : decodedDuration;
  const seek = (t: number) => {
    if (audio.current) audio.current.currentTime = t;
    setTime(t);
  };

  return (
    <figure data-testid={testId} className={cn('rounded-xl border border-gray-200 p-3 dark:border-gray-800', className)}>
      <figcaption className="mb-2 flex min-h-8 items-center justify-between gap-2 text-sm font-medium">
        <span>{label}</span>
        {actions}
      </figcaption>
      <div className="relative h-16 rounded-md bg-gray-50 has-[input:focus-visible]:outline-2 has-[input:focus-visible]:outline-offset-2 has-[input:focus-visible]:outline-indigo-500 dark:bg-gray-900">
        <Waveform key={src} src={src} progress={duration ? time / duration : 0} onReadyChange={setWaveReady} className="absolute inset-0" />
        {!waveReady && (
          <span className="absolute inset-0 flex items-center justify-center text-xs text-gray-500" data-testid="waveform-status">
            {undrawable ? 'No waveform for this audio' : 'Drawing the waveform…'}
          </span>
        )}
        <input
          type="range"
          aria-label={`Seek in ${label}`}
          min={0}
          max={duration || 0}
          step={0.01}
          value={Math.min(time, duration || 0)}
          disabled={!duration}
          onChange={(e) => seek(Number(e.target.value))}
          className="absolute inset-0 h-full w-full cursor-pointer opacity-0 disabled:cursor-default"
        />
      </div>
      <div className="mt-2 flex items-center gap-2">
        <audio
          ref={audio}
          src={src}
          controls
          preload="metadata"
          autoPlay={autoPlay}
          aria-label={label}
          data-testid={`${testId}-audio`}
          className="h-10 min-w-0 flex-1"
          onTimeUpdate={(e) => setTime(e.currentTarget.currentTime)}
          onSeeked={(e) => setTime(e.currentTarget.currentTime)}
          onLoadedMetadata={(e) => setMediaDuration(e.currentTarget.duration)}
          onDurationChange={(e) => setMediaDuration(e.currentTarget.duration)}
          onEnded={() => setTime(0)}
        />
        {/* The element's own controls show the time, except for a recording whose WebM has no duration. */}
        {!(Number.isFinite(mediaDuration) && mediaDuration > 0) && duration > 0 && (
          <span className="w-20 shrink-0 text-right text-xs tabular-nums text-gray-500">
            {formatTime(time)} / {formatTime(duration)}
          </span>
        )}
      </div>
    </figure>
  );
}
