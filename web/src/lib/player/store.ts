import { client, unwrap, type HistoryItem } from '../api';
import { PLAYER } from '../constants';
import { historyFileName } from '../download';
import { estimateDurationSeconds } from '../format';
import { forgetPeaks } from './peaks';

/**
 * Global audio player store (spec §2, §4, §9). One <audio> element (rendered
 * by the GlobalPlayer component) is attached to the store and is the source of
 * truth for playback; features call `load()` to play something.
 */

export type PlayerStatus = 'idle' | 'loading' | 'ready' | 'playing' | 'paused' | 'ended';

export type PlayerItemType = 'text-to-speech' | 'speech-to-speech' | 'speechHistoryItem' | 'voicePreview';

export interface PlayerItem {
  /** Unique id of this item (e.g. the history item id or a generated id). */
  id: string;
  src: string;
  type: PlayerItemType;
  title: string;
  voiceName?: string;
  voiceId?: string;
  historyItemId?: string;
  /** Text spoken; used for the title and to estimate an unknown duration. */
  text?: string;
  /** Download file name; set from the history item once it is fetched. */
  fileName?: string;
  outputFormat?: string;
  autoStart?: boolean;
  /** Revoke `src` (an object URL) when the item is replaced. */
  revokeSrc?: boolean;
  /**
   * True once the item is ready for download: at once for items without a
   * history item, otherwise when GET /v1/history/{id} has answered.
   */
  loaded?: boolean;
}

/** Where the history item lookup of the current item stands. */
export type HistoryLookup = 'none' | 'pending' | 'found' | 'failed';

export interface PlayerState {
  item: PlayerItem | null;
  status: PlayerStatus;
  currentTime: number;
  duration: number;
  speed: number;
  collapsed: boolean;
  downloading: boolean;
  /** The current item's history item, once fetched. */
  historyItem: HistoryItem | null;
  historyLookup: HistoryLookup;
  /** Feedback buttons show after 3 s of playback or at the end (spec §4, §9). */
  feedbackVisible: boolean;
}

export type Downloader = (item: PlayerItem, historyItem: HistoryItem | null) => Promise<void>;
export type HistoryItemFetcher = (historyItemId: string) => Promise<HistoryItem>;
export type ErrorCallback = (item: PlayerItem, error: unknown) => void;

/** Timings of the player (spec §4, §9). */
export const PLAYER_TIMINGS = {
  /** Wait after a new item loads before the first history item fetch. */
  historyFirstDelayMs: 1000,
  /** Pause between history item fetches. */
  historyRetryDelayMs: 5000,
  /** At most this many history item fetches. */
  historyAttempts: 10,
  /** Playback time after which the feedback buttons show. */
  feedbackAfterMs: 3000,
} as const;

const initialState: PlayerState = {
  item: null,
  status: 'idle',
  currentTime: 0,
  duration: 0,
  speed: 1,
  collapsed: false,
  downloading: false,
  historyItem: null,
  historyLookup: 'none',
  feedbackVisible: false,
};

export const fetchHistoryItem: HistoryItemFetcher = (id) =>
  unwrap(client.GET('/v1/history/{history_item_id}', { params: { path: { history_item_id: id } } }));

function isAutoplayBlocked(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: string }).name === 'NotAllowedError';
}

function isAbort(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: string }).name === 'AbortError';
}

export interface PlayerStoreOptions {
  initial?: Partial<PlayerState>;
  fetchHistoryItem?: HistoryItemFetcher;
}

export class PlayerStore {
  private state: PlayerState;
  private listeners = new Set<() => void>();
  private audio: HTMLAudioElement | null = null;
  private detachAudio: (() => void) | null = null;
  private raf = 0;
  private downloader: Downloader | null = null;
  private endCallbacks = new Set<(item: PlayerItem) => void>();
  private errorCallbacks = new Set<ErrorCallback>();
  private fetchHistory: HistoryItemFetcher;
  /** Bumped on every load/clear: stale timers and answers check it. */
  private generation = 0;
  private historyTimer: ReturnType<typeof setTimeout> | undefined;
  private feedbackTimer: ReturnType<typeof setTimeout> | undefined;
  /** Playback time of the current item before the running stretch. */
  private playedMs = 0;
  private playingSince: number | null = null;
  private erroredItemId: string | null = null;

  constructor(options: PlayerStoreOptions = {}) {
    this.state = { ...initialState, ...options.initial };
    this.fetchHistory = options.fetchHistoryItem ?? fetchHistoryItem;
  }

  getState = (): PlayerState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  private set(patch: Partial<PlayerState>) {
    this.state = { ...this.state, ...patch };
    this.listeners.forEach((l) => l());
  }

  setDownloader(downloader: Downloader | null): void {
    this.downloader = downloader;
  }

  onEnded(callback: (item: PlayerItem) => void): () => void {
    this.endCallbacks.add(callback);
    return () => this.endCallbacks.delete(callback);
  }

  /** Called once per item when its audio fails to load or play (not when autoplay is blocked). */
  onError(callback: ErrorCallback): () => void {
    this.errorCallbacks.add(callback);
    return () => this.errorCallbacks.delete(callback);
  }

  /** Attaches the <audio> element; returns a detach function. */
  attach(audio: HTMLAudioElement): () => void {
    this.detachAudio?.();
    this.audio = audio;
    audio.playbackRate = this.state.speed;
    const on = (type: string, fn: () => void) => {
      audio.addEventListener(type, fn);
      return () => audio.removeEventListener(type, fn);
    };
    const offs = [
      on('loadstart', () => this.state.item && this.set({ status: 'loading' })),
      on('loadedmetadata', () => this.onReady()),
      on('canplay', () => this.onReady()),
      on('durationchange', () => this.state.item && this.set({ duration: this.readDuration() })),
      on('play', () => {
        if (!this.state.item) return;
        this.set({ status: 'playing' });
        this.startFeedbackClock();
      }),
      on('playing', () => {
        if (!this.state.item) return;
        this.set({ status: 'playing' });
        this.startFeedbackClock();
        this.startTicking();
      }),
      on('pause', () => {
        this.stopTicking();
        this.stopFeedbackClock();
        if (this.state.status !== 'ended' && this.state.item) this.set({ status: 'paused', currentTime: audio.currentTime });
      }),
      on('timeupdate', () => this.state.item && this.set({ currentTime: audio.currentTime })),
      on('ended', () => this.onEnd()),
      on('error', () => {
        this.stopTicking();
        this.stopFeedbackClock();
        const item = this.state.item;
        // An <audio> without a source also reports errors: only the current item's count.
        if (!item || !audio.getAttribute('src')) return;
        console.warn('[timbre] audio failed to load', audio.error);
        this.set({ status: 'paused' });
        this.reportError(item, audio.error);
      }),
    ];
    if (this.state.item && audio.getAttribute('src') !== this.state.item.src) this.applySource(this.state.item);
    this.detachAudio = () => {
      offs.forEach((off) => off());
      this.stopTicking();
      if (this.audio === audio) this.audio = null;
    };
    return this.detachAudio;
  }

  private reportError(item: PlayerItem, error: unknown) {
    if (this.erroredItemId === item.id) return;
    this.erroredItemId = item.id;
    this.errorCallbacks.forEach((cb) => cb(item, error));
  }

  private onReady() {
    if (!this.state.item) return;
    const duration = this.readDuration();
    if (this.state.status === 'loading' || this.state.status === 'idle') this.set({ status: 'ready', duration });
    else this.set({ duration });
  }

  private onEnd() {
    const item = this.state.item;
    this.stopTicking();
    this.stopFeedbackClock();
    if (this.audio) this.audio.currentTime = 0;
    this.set({ status: 'ended', currentTime: 0, feedbackVisible: this.canHaveFeedback() });
    if (item) this.endCallbacks.forEach((cb) => cb(item));
  }

  /** Duration of the audio, or an estimate from the text at 140 words per minute when unknown. */
  private readDuration(): number {
    const d = this.audio?.duration;
    if (d !== undefined && Number.isFinite(d) && d > 0) return d;
    const text = this.state.item?.text;
    return text ? estimateDurationSeconds(text, PLAYER.wordsPerMinute) : 0;
  }

  private startTicking() {
    this.stopTicking();
    if (typeof requestAnimationFrame === 'undefined') return;
    const tick = () => {
      if (this.audio) {
        const t = this.audio.currentTime;
        if (Math.abs(t - this.state.currentTime) >= 0.025) this.set({ currentTime: t });
      }
      this.raf = requestAnimationFrame(tick);
    };
    this.raf = requestAnimationFrame(tick);
  }

  private stopTicking() {
    if (this.raf && typeof cancelAnimationFrame !== 'undefined') cancelAnimationFrame(this.raf);
    this.raf = 0;
  }

  // Feedback buttons: after 3 s of playback (accumulated across pauses) or at the end.

  private canHaveFeedback(): boolean {
    const item = this.state.item;
    return Boolean(item?.historyItemId) && item?.type !== 'voicePreview';
  }

  private startFeedbackClock() {
    if (this.playingSince !== null || this.state.feedbackVisible || !this.canHaveFeedback()) return;
    this.playingSince = Date.now();
    const generation = this.generation;
    this.feedbackTimer = setTimeout(
      () => {
        if (generation !== this.generation) return;
        this.stopFeedbackClock();
        this.set({ feedbackVisible: true });
      },
      Math.max(0, PLAYER_TIMINGS.feedbackAfterMs - this.playedMs),
    );
  }

  private stopFeedbackClock() {
    if (this.playingSince !== null) this.playedMs += Date.now() - this.playingSince;
    this.playingSince = null;
    clearTimeout(this.feedbackTimer);
    this.feedbackTimer = undefined;
  }

  // History item lookup: 1 s after a new item loads, then up to 10 fetches 5 s apart.

  private startHistoryLookup(item: PlayerItem) {
    const id = item.historyItemId;
    if (!id) return;
    const generation = this.generation;
    const attempt = async (n: number) => {
      this.historyTimer = undefined;
      try {
        const historyItem = await this.fetchHistory(id);
        if (generation !== this.generation) return;
        const current = this.state.item;
        if (!current) return;
        this.set({
          item: { ...current, loaded: true, fileName: historyFileName(historyItem) },
          historyItem,
          historyLookup: 'found',
        });
      } catch (err) {
        if (generation !== this.generation) return;
        if (n >= PLAYER_TIMINGS.historyAttempts) {
          console.warn(`[timbre] history item ${id} not available after ${n} attempts`, err);
          this.set({ historyLookup: 'failed' });
          return;
        }
        this.historyTimer = setTimeout(() => void attempt(n + 1), PLAYER_TIMINGS.historyRetryDelayMs);
      }
    };
    this.historyTimer = setTimeout(() => void attempt(1), PLAYER_TIMINGS.historyFirstDelayMs);
  }

  /** Merges a change into the fetched history item (e.g. new feedback). */
  updateHistoryItem(historyItemId: string, patch: Partial<HistoryItem>): void {
    const current = this.state.historyItem;
    if (current?.history_item_id !== historyItemId) return;
    this.set({ historyItem: { ...current, ...patch } });
  }

  private resetItemClocks() {
    this.generation++;
    clearTimeout(this.historyTimer);
    this.historyTimer = undefined;
    clearTimeout(this.feedbackTimer);
    this.feedbackTimer = undefined;
    this.playedMs = 0;
    this.playingSince = null;
    this.erroredItemId = null;
  }

  private applySource(item: PlayerItem) {
    const audio = this.audio;
    if (!audio) return;
    audio.src = item.src;
    audio.playbackRate = this.state.speed;
    if (item.autoStart) this.play();
  }

  /** Loads an item (replacing the current one); autoplays when `autoStart`. */
  load(input: PlayerItem): void {
    const previous = this.state.item;
    if (previous?.revokeSrc && previous.src !== input.src) {
      forgetPeaks(previous.src);
      try {
        URL.revokeObjectURL(previous.src);
      } catch {
        /* ignore */
      }
    }
    this.resetItemClocks();
    const item: PlayerItem = { ...input, loaded: !input.historyItemId };
    this.set({
      item,
      status: 'loading',
      currentTime: 0,
      duration: item.text ? estimateDurationSeconds(item.text, PLAYER.wordsPerMinute) : 0,
      historyItem: null,
      historyLookup: item.historyItemId ? 'pending' : 'none',
      feedbackVisible: false,
    });
    this.startHistoryLookup(item);
    this.applySource(item);
  }

  play(): void {
    const audio = this.audio;
    const item = this.state.item;
    if (!audio || !item) return;
    if (this.state.status === 'ended') audio.currentTime = 0;
    let result: Promise<void> | undefined;
    try {
      result = audio.play();
    } catch (err) {
      this.onPlayRejected(item, err);
      return;
    }
    if (result && typeof result.catch === 'function') result.catch((err: unknown) => this.onPlayRejected(item, err));
  }

  private onPlayRejected(item: PlayerItem, err: unknown) {
    if (this.state.item?.id !== item.id) return;
    if (isAbort(err)) return; // a newer load() interrupted this play()
    if (this.state.status !== 'ended') this.set({ status: 'paused' });
    // Autoplay blocked: spec §8 says only log it.
    if (isAutoplayBlocked(err)) {
      console.info('[timbre] playback was blocked by the browser', err);
      return;
    }
    console.warn('[timbre] playback failed', err);
    this.reportError(item, err);
  }

  pause(): void {
    this.audio?.pause();
  }

  toggle(): void {
    if (!this.state.item) return;
    if (this.state.status === 'playing') this.pause();
    else this.play();
  }

  seek(seconds: number): void {
    const audio = this.audio;
    if (!audio || !this.state.item) return;
    const max = this.state.duration || audio.duration || 0;
    const t = Math.max(0, Number.isFinite(max) && max > 0 ? Math.min(seconds, max) : seconds);
    audio.currentTime = t;
    this.set({ currentTime: t, status: this.state.status === 'ended' ? 'paused' : this.state.status });
  }

  skip(deltaSeconds: number): void {
    const current = this.audio?.currentTime ?? this.state.currentTime;
    this.seek(current + deltaSeconds);
  }

  setSpeed(speed: number): void {
    if (this.audio) this.audio.playbackRate = speed;
    this.set({ speed });
  }

  setCollapsed(collapsed: boolean): void {
    this.set({ collapsed });
  }

  /** Download is possible once the item is loaded, or when its history item could not be found. */
  canDownload(state: PlayerState = this.state): boolean {
    return Boolean(state.item && (state.item.loaded || state.historyLookup === 'failed')) && !state.downloading;
  }

  async download(): Promise<void> {
    const item = this.state.item;
    if (!item || !this.downloader || !this.canDownload()) return;
    this.set({ downloading: true });
    try {
      await this.downloader(item, this.state.historyItem);
    } finally {
      this.set({ downloading: false });
    }
  }

  /** Empties the source and the item. */
  clear(): void {
    const item = this.state.item;
    this.resetItemClocks();
    this.audio?.pause();
    if (this.audio) {
      this.audio.removeAttribute('src');
      this.audio.load?.();
    }
    if (item?.revokeSrc) {
      forgetPeaks(item.src);
      try {
        URL.revokeObjectURL(item.src);
      } catch {
        /* ignore */
      }
    }
    this.set({
      item: null,
      status: 'idle',
      currentTime: 0,
      duration: 0,
      historyItem: null,
      historyLookup: 'none',
      feedbackVisible: false,
    });
  }
}
