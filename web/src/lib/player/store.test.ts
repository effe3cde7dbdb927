import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch } from '@/test/utils';
import type { HistoryItem } from '../api';
import { PLAYER_TIMINGS, PlayerStore, type PlayerItem } from './store';

const historyItem: HistoryItem = {
  history_item_id: 'h1',
  voice_name: 'Brian',
  text: 'Hello there world',
  date_unix: 1_700_000_000,
  character_count_change_from: 0,
  character_count_change_to: 17,
  content_type: 'audio/mpeg',
  state: 'created',
  settings: { stability: 0.5, similarity_boost: 0.75, style: 0, use_speaker_boost: true },
  output_format: 'mp3_44100_128',
};

const ttsItem: PlayerItem = {
  id: 'h1',
  src: 'blob:http://localhost/abc',
  type: 'text-to-speech',
  title: 'Hello there world',
  voiceName: 'Brian',
  historyItemId: 'h1',
  text: 'Hello there world',
};

function setup(fetcher = vi.fn(async (_id: string): Promise<HistoryItem> => historyItem)) {
  const store = new PlayerStore({ fetchHistoryItem: fetcher });
  const audio = document.createElement('audio');
  store.attach(audio);
  return { store, audio, fetcher };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('history item lookup (spec §4: 1 s, then up to 10 tries 5 s apart)', () => {
  it('waits 1 s, retries every 5 s until it succeeds, then marks the item loaded with its file name', async () => {
    let calls = 0;
    const fetcher = vi.fn(async () => {
      calls++;
      if (calls < 3) throw new Error('not yet');
      return historyItem;
    });
    const { store } = setup(fetcher);
    store.load(ttsItem);
    expect(store.getState().item?.loaded).toBe(false);
    expect(store.getState().historyLookup).toBe('pending');
    expect(store.canDownload()).toBe(false);

    await vi.advanceTimersByTimeAsync(999);
    expect(fetcher).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fetcher).toHaveBeenCalledTimes(1);
    expect(fetcher).toHaveBeenCalledWith('h1');
    await vi.advanceTimersByTimeAsync(4999);
    expect(fetcher).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetcher).toHaveBeenCalledTimes(2);
    expect(store.getState().item?.loaded).toBe(false);
    await vi.advanceTimersByTimeAsync(5000);
    expect(fetcher).toHaveBeenCalledTimes(3);

    const state = store.getState();
    expect(state.item?.loaded).toBe(true);
    expect(state.historyLookup).toBe('found');
    expect(state.historyItem).toEqual(historyItem);
    expect(state.item?.fileName).toBe('Timbre_2023-11-14T22_13_20_Brian_s50_sb75_se0_b_Hello_there_world.mp3');
    expect(store.canDownload()).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetcher).toHaveBeenCalledTimes(3);
  });

  it('gives up after 10 attempts (the download then falls back to the source)', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const fetcher = vi.fn(async (): Promise<HistoryItem> => {
      throw new Error('404');
    });
    const { store } = setup(fetcher);
    store.load(ttsItem);
    await vi.advanceTimersByTimeAsync(PLAYER_TIMINGS.historyFirstDelayMs + 8 * PLAYER_TIMINGS.historyRetryDelayMs);
    expect(fetcher).toHaveBeenCalledTimes(9);
    expect(store.getState().historyLookup).toBe('pending');
    await vi.advanceTimersByTimeAsync(PLAYER_TIMINGS.historyRetryDelayMs);
    expect(fetcher).toHaveBeenCalledTimes(10);
    expect(store.getState().historyLookup).toBe('failed');
    expect(store.getState().item?.loaded).toBe(false);
    expect(store.canDownload()).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetcher).toHaveBeenCalledTimes(10);
    expect(warn).toHaveBeenCalled();
  });

  it('a new item cancels the lookup of the previous one', async () => {
    const { store, fetcher } = setup();
    store.load(ttsItem);
    await vi.advanceTimersByTimeAsync(500);
    store.load({ ...ttsItem, id: 'h2', historyItemId: 'h2' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(fetcher.mock.calls).toEqual([['h2']]);
    store.clear();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetcher).toHaveBeenCalledTimes(1);
  });

  it('items without a history item (voice previews) are loaded at once and never looked up', async () => {
    const { store, fetcher } = setup();
    store.load({ id: 'voice-preview:v1', src: '/api/voices/v1/preview.mp3', type: 'voicePreview', title: 'Brian' });
    expect(store.getState().item?.loaded).toBe(true);
    expect(store.getState().historyLookup).toBe('none');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetcher).not.toHaveBeenCalled();
  });

  it('the default lookup is GET /v1/history/{id}', async () => {
    const { calls } = mockFetch({ 'GET /v1/history/h1': () => jsonResponse(historyItem) });
    const store = new PlayerStore();
    store.attach(document.createElement('audio'));
    store.load(ttsItem);
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(['GET /v1/history/h1']);
    expect(store.getState().historyItem?.voice_name).toBe('Brian');
  });
});

describe('feedback buttons (spec §4: after 3 s of playback or at the end)', () => {
  it('show after 3 s of playback, counted across pauses', async () => {
    const { store, audio } = setup();
    store.load(ttsItem);
    store.play();
    await vi.advanceTimersByTimeAsync(2000);
    expect(store.getState().feedbackVisible).toBe(false);
    audio.pause();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(store.getState().feedbackVisible).toBe(false);
    store.play();
    await vi.advanceTimersByTimeAsync(999);
    expect(store.getState().feedbackVisible).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.getState().feedbackVisible).toBe(true);
  });

  it('show at the end even when shorter than 3 s', () => {
    const { store, audio } = setup();
    store.load(ttsItem);
    store.play();
    audio.dispatchEvent(new Event('ended'));
    expect(store.getState().status).toBe('ended');
    expect(store.getState().feedbackVisible).toBe(true);
  });

  it('reset for the next item, and never for voice previews', async () => {
    const { store, audio } = setup();
    store.load(ttsItem);
    store.play();
    await vi.advanceTimersByTimeAsync(3000);
    expect(store.getState().feedbackVisible).toBe(true);
    store.load({ id: 'voice-preview:v1', src: '/p.mp3', type: 'voicePreview', title: 'Brian', voiceId: 'v1' });
    expect(store.getState().feedbackVisible).toBe(false);
    store.play();
    await vi.advanceTimersByTimeAsync(10_000);
    audio.dispatchEvent(new Event('ended'));
    expect(store.getState().feedbackVisible).toBe(false);
  });
});

describe('playback problems', () => {
  it('a blocked autoplay is only logged', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const { store, audio } = setup();
    const onError = vi.fn();
    store.onError(onError);
    audio.play = vi.fn(() => Promise.reject(new DOMException('blocked', 'NotAllowedError')));
    store.load({ ...ttsItem, autoStart: true });
    await vi.advanceTimersByTimeAsync(0);
    expect(info).toHaveBeenCalledWith('[timbre] playback was blocked by the browser', expect.any(DOMException));
    expect(onError).not.toHaveBeenCalled();
    expect(store.getState().status).toBe('paused');
  });

  it('other failures are reported once per item', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { store, audio } = setup();
    const onError = vi.fn();
    store.onError(onError);
    audio.play = vi.fn(() => Promise.reject(new DOMException('no source', 'NotSupportedError')));
    const preview: PlayerItem = { id: 'voice-preview:v1', src: '/p.mp3', type: 'voicePreview', title: 'Brian', autoStart: true };
    store.load(preview);
    await vi.advanceTimersByTimeAsync(0);
    audio.dispatchEvent(new Event('error'));
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ type: 'voicePreview' }), expect.any(DOMException));
  });
});

describe('duration', () => {
  it('an unknown duration is estimated at 140 words per minute', () => {
    const { store, audio } = setup();
    Object.defineProperty(audio, 'duration', { configurable: true, get: () => Infinity });
    const words = Array.from({ length: 140 }, () => 'word').join(' ');
    store.load({ ...ttsItem, text: words });
    expect(store.getState().duration).toBe(60);
    audio.dispatchEvent(new Event('loadedmetadata'));
    expect(store.getState().duration).toBe(60);
    Object.defineProperty(audio, 'duration', { configurable: true, get: () => 12.5 });
    audio.dispatchEvent(new Event('durationchange'));
    expect(store.getState().duration).toBe(12.5);
  });
});
