/**
 * Waveform peaks of an audio source, for the player's waveform. Decoded at a
 * low sample rate, reduced to a fixed number of bars, and cached per source so
 * replays cost nothing. The <audio> element stays the source of truth for
 * playback; this is only a picture.
 */

export interface Peaks {
  peaks: Float32Array;
  duration: number;
}

export const PEAK_COUNT = 600;
/** Larger files are not decoded for a picture. */
export const MAX_WAVEFORM_BYTES = 15 * 1024 * 1024;
const DECODE_SAMPLE_RATE = 8000;
const CACHE_SIZE = 8;

const cache = new Map<string, Promise<Peaks | null>>();

type OfflineCtor = new (channels: number, length: number, sampleRate: number) => OfflineAudioContext;

function offlineContextCtor(): OfflineCtor | undefined {
  if (typeof window === 'undefined') return undefined;
  const w = window as unknown as { OfflineAudioContext?: OfflineCtor; webkitOfflineAudioContext?: OfflineCtor };
  return w.OfflineAudioContext ?? w.webkitOfflineAudioContext;
}

/** True when this browser can decode audio for a waveform. */
export function canDrawWaveform(): boolean {
  return offlineContextCtor() !== undefined;
}

/** Max absolute sample per bucket, across channels, normalised to 0…1. */
export function reducePeaks(channels: Float32Array[], count: number): Float32Array {
  const length = channels[0]?.length ?? 0;
  const out = new Float32Array(count);
  if (!length) return out;
  const bucket = length / count;
  let max = 0;
  for (let i = 0; i < count; i++) {
    const start = Math.floor(i * bucket);
    const end = Math.max(start + 1, Math.floor((i + 1) * bucket));
    let peak = 0;
    for (const data of channels) {
      for (let j = start; j < end && j < length; j++) {
        const v = Math.abs(data[j]!);
        if (v > peak) peak = v;
      }
    }
    out[i] = peak;
    if (peak > max) max = peak;
  }
  if (max > 0) for (let i = 0; i < count; i++) out[i] = out[i]! / max;
  return out;
}

async function decodePeaks(src: string): Promise<Peaks | null> {
  const Ctor = offlineContextCtor();
  if (!Ctor) return null;
  const res = await fetch(src, { credentials: 'same-origin' });
  if (!res.ok) return null;
  const length = Number(res.headers.get('content-length') ?? 0);
  if (length > MAX_WAVEFORM_BYTES) return null;
  const data = await res.arrayBuffer();
  if (data.byteLength > MAX_WAVEFORM_BYTES) return null;
  const ctx = new Ctor(1, 1, DECODE_SAMPLE_RATE);
  const buffer = await ctx.decodeAudioData(data);
  const channels = Array.from({ length: buffer.numberOfChannels }, (_, i) => buffer.getChannelData(i));
  return { peaks: reducePeaks(channels, PEAK_COUNT), duration: buffer.duration };
}

/** Peaks of `src`, or null when they cannot be had (no Web Audio, too large, undecodable). */
export function loadPeaks(src: string): Promise<Peaks | null> {
  const hit = cache.get(src);
  if (hit) {
    cache.delete(src);
    cache.set(src, hit); // most recently used last
    return hit;
  }
  const promise = decodePeaks(src).catch((err: unknown) => {
    console.info('[timbre] no waveform for this audio', err);
    return null;
  });
  cache.set(src, promise);
  while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return promise;
}

/** Forgets a source (e.g. a revoked object URL). */
export function forgetPeaks(src: string): void {
  cache.delete(src);
}
