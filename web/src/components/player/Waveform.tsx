import { useEffect, useRef, useState } from 'react';
import type WaveSurfer from 'wavesurfer.js';
import { canDrawWaveform, loadPeaks } from '@/lib/player/peaks';
import { useTheme } from '@/lib/theme';
import { cn } from '../cn';

const COLORS = {
  light: { wave: '#d1d5db', progress: '#111827' }, // gray-300, gray-900
  dark: { wave: '#4b5563', progress: '#f9fafb' }, // gray-600, gray-50
} as const;

interface WaveformProps {
  src: string;
  /** Played fraction, 0…1 (from the <audio> element through the player store). */
  progress: number;
  className?: string;
  onReadyChange?: (ready: boolean) => void;
}

/**
 * A picture of the current item's waveform (wavesurfer.js, loaded on demand).
 * It never plays or seeks anything: the <audio> element is the source of truth
 * and the seek slider lies on top of this picture.
 */
export function Waveform({ src, progress, className, onReadyChange }: WaveformProps) {
  const container = useRef<HTMLDivElement>(null);
  const wave = useRef<WaveSurfer | null>(null);
  const [ready, setReady] = useState(false);
  const { theme } = useTheme();
  const themeRef = useRef(theme);
  themeRef.current = theme;
  const onReadyRef = useRef(onReadyChange);
  onReadyRef.current = onReadyChange;

  useEffect(() => {
    setReady(false);
    onReadyRef.current?.(false);
    if (!canDrawWaveform()) return;
    let cancelled = false;
    let instance: WaveSurfer | null = null;
    void (async () => {
      try {
        const peaks = await loadPeaks(src);
        if (cancelled || !peaks || !container.current) return;
        const { default: WaveSurferLib } = await import('wavesurfer.js');
        if (cancelled || !container.current) return;
        const colors = COLORS[themeRef.current];
        instance = WaveSurferLib.create({
          container: container.current,
          peaks: [peaks.peaks],
          duration: peaks.duration,
          height: 'auto',
          interact: false,
          cursorWidth: 0,
          barWidth: 2,
          barGap: 1,
          barRadius: 2,
          barMinHeight: 1,
          normalize: true,
          hideScrollbar: true,
          waveColor: colors.wave,
          progressColor: colors.progress,
        });
        wave.current = instance;
        instance.on('redraw', () => {
          if (cancelled) return;
          setReady(true);
          onReadyRef.current?.(true);
        });
        instance.on('error', (err) => console.info('[timbre] waveform failed', err));
      } catch (err) {
        console.info('[timbre] waveform unavailable', err);
      }
    })();
    return () => {
      cancelled = true;
      wave.current = null;
      instance?.destroy();
    };
  }, [src]);

  useEffect(() => {
    const colors = COLORS[theme];
    if (ready) wave.current?.setOptions({ waveColor: colors.wave, progressColor: colors.progress });
  }, [theme, ready]);

  useEffect(() => {
    if (!ready || !wave.current) return;
    const p = Number.isFinite(progress) ? Math.min(1, Math.max(0, progress)) : 0;
    try {
      wave.current.seekTo(p);
    } catch {
      /* the picture only */
    }
  }, [progress, ready]);

  return <div ref={container} aria-hidden="true" data-testid="player-waveform" className={cn(!ready && 'invisible', className)} />;
}
