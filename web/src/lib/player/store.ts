import { PLAYER } from '../constants';
import { estimateDurationSeconds } from '../format';

/**
 * Global audio player store (spec §2, §4, §9). One <audio> element (rendered
 * by the GlobalPlayer component) is attached to the store; features call
 * `load()` to play something.
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
  historyItemId?: string;
  /** Text spoken; used for the title and to estimate an unknown duration. */
  text?: string;
  /** Download file name (without server help). */
  fileName?: string;
  outputFormat?: string;
  autoStart?: boolean;
  /** Revoke `src` (an object URL) when the item is replaced. */
  revokeSrc?: boolean;
}

export interface PlayerState {
  item: PlayerItem | null;
  status: PlayerStatus;
  currentTime: number;
  duration: number;
  speed: number;
  collapsed: boolean;
  downloading: boolean;
}

export type Downloader = (item: PlayerItem) => Promise<void>;

const initialState: PlayerState = {
  item: null,
  status: 'idle',
  currentTime: 0,
  duration: 0,
  speed: 1,
  collapsed: false,
  downloading: false,
};

export class PlayerStore {
  private state: PlayerState;
  private listeners = new Set<() => void>();
  private audio: HTMLAudioElement | null = null;
  private detachAudio: (() => void) | null = null;
  private raf = 0;
  private downloader: Downloader | null = null;
  private endCallbacks = new Set<(item: PlayerItem) => void>();

  constructor(initial?: Partial<PlayerState>) {
    this.state = { ...initialState, ...initial };
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
      on('durationchange', () => this.set({ duration: this.readDuration() })),
      on('play', () => this.set({ status: 'playing' })),
      on('playing', () => {
        this.set({ status: 'playing' });
        this.startTicking();
      }),
      on('pause', () => {
        this.stopTicking();
        if (this.state.status !== 'ended' && this.state.item) this.set({ status: 'paused', currentTime: audio.currentTime });
      }),
      on('timeupdate', () => this.set({ currentTime: audio.currentTime })),
      on('ended', () => this.onEnd()),
      on('error', () => {
        this.stopTicking();
        if (this.state.item) {
          console.warn('[timbre] audio failed to load', audio.error);
          this.set({ status: 'paused' });
        }
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

  private onReady() {
    if (!this.state.item) return;
    const duration = this.readDuration();
    if (this.state.status === 'loading' || this.state.status === 'idle') this.set({ status: 'ready', duration });
    else this.set({ duration });
  }

  private onEnd() {
    const item = this.state.item;
    this.stopTicking();
    if (this.audio) this.audio.currentTime = 0;
    this.set({ status: 'ended', currentTime: 0 });
    if (item) this.endCallbacks.forEach((cb) => cb(item));
  }

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

  private applySource(item: PlayerItem) {
    const audio = this.audio;
    if (!audio) return;
    audio.src = item.src;
    audio.playbackRate = this.state.speed;
    if (item.autoStart) this.play();
  }

  /** Loads an item (replacing the current one); autoplays when `autoStart`. */
  load(item: PlayerItem): void {
    const previous = this.state.item;
    if (previous?.revokeSrc && previous.src !== item.src) {
      try {
        URL.revokeObjectURL(previous.src);
      } catch {
        /* ignore */
      }
    }
    this.set({ item, status: 'loading', currentTime: 0, duration: item.text ? estimateDurationSeconds(item.text) : 0 });
    this.applySource(item);
  }

  play(): void {
    const audio = this.audio;
    if (!audio || !this.state.item) return;
    if (this.state.status === 'ended') audio.currentTime = 0;
    const result = audio.play();
    // Autoplay may be blocked: spec §8 says only log it.
    if (result && typeof result.catch === 'function') {
      result.catch((err: unknown) => {
        console.info('[timbre] playback was blocked', err);
        this.set({ status: 'paused' });
      });
    }
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

  async download(): Promise<void> {
    const item = this.state.item;
    if (!item || !this.downloader || this.state.downloading) return;
    this.set({ downloading: true });
    try {
      await this.downloader(item);
    } finally {
      this.set({ downloading: false });
    }
  }

  /** Empties the source and the item. */
  clear(): void {
    const item = this.state.item;
    this.audio?.pause();
    if (this.audio) {
      this.audio.removeAttribute('src');
      this.audio.load?.();
    }
    if (item?.revokeSrc) {
      try {
        URL.revokeObjectURL(item.src);
      } catch {
        /* ignore */
      }
    }
    this.set({ item: null, status: 'idle', currentTime: 0, duration: 0 });
  }
}
