import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch } from '@/test/utils';
import { canDrawWaveform, loadPeaks, reducePeaks } from './peaks';

afterEach(() => vi.unstubAllGlobals());

describe('waveform peaks', () => {
  it('reduces samples to normalised bucket maxima across channels', () => {
    const left = new Float32Array([0, 0.1, -0.5, 0.2, 0, 0, 0.25, -0.1]);
    const right = new Float32Array([0, 0.3, 0, 0, 0, 0, 0, 0]);
    expect(Array.from(reducePeaks([left, right], 4))).toEqual([0.6000000238418579, 1, 0, 0.5]);
    expect(Array.from(reducePeaks([], 3))).toEqual([0, 0, 0]);
  });

  it('decodes with an OfflineAudioContext at 8 kHz, once per source', async () => {
    const decode = vi.fn(async () => ({
      numberOfChannels: 1,
      duration: 2,
      getChannelData: () => new Float32Array(16000).map((_, i) => Math.sin(i / 10)),
    }));
    const ctor = vi.fn(function (this: { decodeAudioData: typeof decode }) {
      this.decodeAudioData = decode;
    });
    vi.stubGlobal('OfflineAudioContext', ctor);
    const { calls } = mockFetch({ 'GET /a.mp3': () => new Response(new Uint8Array(100)) });
    expect(canDrawWaveform()).toBe(true);
    const first = await loadPeaks('/a.mp3');
    const second = await loadPeaks('/a.mp3');
    expect(first?.duration).toBe(2);
    expect(first?.peaks).toHaveLength(600);
    expect(second).toBe(first);
    expect(calls).toHaveLength(1);
    expect(ctor).toHaveBeenCalledWith(1, 1, 8000);
  });

  it('gives no picture for failed or too large sources', async () => {
    vi.stubGlobal('OfflineAudioContext', vi.fn());
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    mockFetch({
      'GET /missing.mp3': () => jsonResponse({ detail: { status: 'not_found' } }, 404),
      'GET /huge.mp3': () => new Response('x', { headers: { 'content-length': String(50 * 1024 * 1024) } }),
    });
    expect(await loadPeaks('/missing.mp3')).toBeNull();
    expect(await loadPeaks('/huge.mp3')).toBeNull();
  });
});
