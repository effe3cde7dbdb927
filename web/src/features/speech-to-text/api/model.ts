import type { TranscriptWord } from './index';

/** A word of the transcript with its place among the transcript's entries and its times. */
export interface TimedWord {
  index: number;
  text: string;
  start: number;
  end: number;
  speaker: string;
}

/** The speaker of a transcript made without diarization. */
export const DEFAULT_SPEAKER = 'speaker_0';

/** The words (not spacing or audio events) of a transcript, with times (0 when absent). */
export function timedWords(entries: TranscriptWord[]): TimedWord[] {
  const out: TimedWord[] = [];
  entries.forEach((w, index) => {
    if (w.type !== 'word') return;
    out.push({ index, text: w.text, start: w.start ?? 0, end: w.end ?? 0, speaker: w.speaker_id ?? DEFAULT_SPEAKER });
  });
  return out;
}

/**
 * The word being spoken at time t (seconds): the last word that started at or before t, while
 * t is before its end; -1 in pauses. Binary search: it runs on every animation frame.
 */
export function activeWord(words: TimedWord[], t: number): number {
  let lo = 0;
  let hi = words.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (words[mid]!.start <= t) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found >= 0 && t < words[found]!.end ? found : -1;
}

/** "Speaker 1" for speaker_0, unless a name was given. */
export function speakerLabel(id: string, names: Record<string, string> | undefined): string {
  const name = names?.[id];
  if (name) return name;
  const n = /^speaker_(\d+)$/.exec(id);
  return n ? `Speaker ${Number(n[1]) + 1}` : id;
}

/** A run of words that the view shows as one paragraph. */
export interface Paragraph {
  speaker: string;
  start: number;
  /** Positions in the timedWords list. */
  words: number[];
}

/** Pause (seconds) after which the same speaker's words start a new paragraph. */
export const PARAGRAPH_PAUSE = 1.5;

/** Groups words into paragraphs at each change of speaker and each long pause. */
export function paragraphs(words: TimedWord[]): Paragraph[] {
  const out: Paragraph[] = [];
  words.forEach((w, i) => {
    const last = out[out.length - 1];
    const prev = words[i - 1];
    if (!last || !prev || w.speaker !== last.speaker || w.start - prev.end > PARAGRAPH_PAUSE) {
      out.push({ speaker: w.speaker, start: w.start, words: [i] });
    } else {
      last.words.push(i);
    }
  });
  return out;
}

/**
 * An estimate of how far a transcription has come, for the progress bar while the server works:
 * the embedded recogniser runs at about four times real time, so the bar moves toward 95 % over
 * a quarter of the audio's length (plus a second to start), and waits there for the answer.
 */
export function transcriptionProgress(elapsedSeconds: number, audioSeconds: number | undefined): number {
  const expected = (audioSeconds && Number.isFinite(audioSeconds) ? audioSeconds / 4 : 10) + 1;
  return Math.min(0.95, elapsedSeconds / expected);
}

/** The extensions of the audio and video files the picker offers (anything ffmpeg decodes is accepted). */
export const ACCEPTED_FILES = 'audio/*,video/*,.mp3,.wav,.m4a,.ogg,.opus,.flac,.webm,.mp4,.aac';
