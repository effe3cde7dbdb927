import type { DetectedEntity, TranscriptWord } from './index';

/** A word of the transcript with its place among the transcript's entries and its times. */
export interface TimedWord {
  index: number;
  text: string;
  start: number;
  end: number;
  speaker: string;
  /** The channel it was heard on (use_multi_channel), else undefined. */
  channel?: number;
  /** Its offset in the transcript's text, in characters (code points, as the API counts them). */
  offset: number;
}

/** The speaker of a transcript made without diarization. */
export const DEFAULT_SPEAKER = 'speaker_0';

/** The words (not spacing or audio events) of a transcript, with times (0 when absent). */
export function timedWords(entries: TranscriptWord[]): TimedWord[] {
  const out: TimedWord[] = [];
  let offset = 0; // the text is the entries' texts laid end to end
  entries.forEach((w, index) => {
    const at = offset;
    offset += Array.from(w.text).length;
    if (w.type !== 'word') return;
    out.push({
      index,
      text: w.text,
      start: w.start ?? 0,
      end: w.end ?? 0,
      speaker: w.speaker_id ?? DEFAULT_SPEAKER,
      channel: w.channel_index ?? undefined,
      offset: at,
    });
  });
  return out;
}

/**
 * For each word (by its position in words), the entity it lies in (an index into entities) or
 * -1. Entities' start_char/end_char count characters of the transcript's text.
 */
export function entityOfWords(words: TimedWord[], entities: DetectedEntity[] | null | undefined): number[] {
  const out = words.map(() => -1);
  if (!entities?.length) return out;
  words.forEach((w, i) => {
    const end = w.offset + Array.from(w.text).length;
    out[i] = entities.findIndex((e) => w.offset < e.end_char && end > e.start_char);
  });
  return out;
}

/** "credit_card" → "Credit card". */
export function entityTypeLabel(type: string): string {
  const s = type.replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A marker that entity redaction put in place of an entity: {REDACTED}, {CREDIT_CARD}, {CREDIT_CARD_0}. */
export const isRedactionMarker = (text: string) => /\{[A-Z][A-Z_]*(_\d+)?\}/.test(text);

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

/**
 * "Speaker 1" for speaker_0 ("Channel 1" when the transcript's speakers are its channels,
 * use_multi_channel), "Agent" and "Customer" for the roles detect_speaker_roles gives, unless a
 * name was given.
 */
export function speakerLabel(id: string, names: Record<string, string> | undefined, channels = false): string {
  const name = names?.[id];
  if (name) return name;
  const n = /^speaker_(\d+)$/.exec(id);
  if (n) return `${channels ? 'Channel' : 'Speaker'} ${Number(n[1]) + 1}`;
  return ROLE_LABELS[id] ?? id;
}

const ROLE_LABELS: Record<string, string> = { agent: 'Agent', customer: 'Customer' };

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

/** The entity categories entity_detection takes, as the form offers them ('' = off). */
export const ENTITY_CHOICES = [
  { value: '', label: 'Off' },
  { value: 'all', label: 'All types' },
  { value: 'pii', label: 'Personal data (PII)' },
  { value: 'pci', label: 'Payment cards (PCI)' },
  { value: 'phi', label: 'Health data (PHI)' },
  { value: 'offensive_language', label: 'Offensive language' },
  { value: 'other', label: 'Other' },
] as const;

export type RedactionMode = 'redacted' | 'entity_type' | 'enumerated_entity_type';
export type MultichannelStyle = 'separate' | 'combined';

/** The upload form's options for POST /v1/speech-to-text. */
export interface TranscriptionSettings {
  languageCode: string; // '' = detect
  diarize: boolean;
  numSpeakers: string; // '' = let diarization decide
  detectSpeakerRoles: boolean;
  multiChannel: boolean;
  multichannelStyle: MultichannelStyle;
  entityDetection: string; // one of ENTITY_CHOICES
  redact: boolean; // redact what entity detection finds
  redactionMode: RedactionMode;
  keyterms: string; // one per line (or separated by commas)
}

export const DEFAULT_SETTINGS: TranscriptionSettings = {
  languageCode: '',
  diarize: false,
  numSpeakers: '',
  detectSpeakerRoles: false,
  multiChannel: false,
  multichannelStyle: 'separate',
  entityDetection: '',
  redact: false,
  redactionMode: 'enumerated_entity_type',
  keyterms: '',
};

/** The keyterms of the form's text: one per line or comma, trimmed, empty ones dropped. */
export const keytermList = (text: string): string[] =>
  text
    .split(/[\n,]/)
    .map((k) => k.trim().replace(/\s+/g, ' '))
    .filter(Boolean);

/** Limits the API puts on keyterms and num_speakers. */
export const MAX_KEYTERMS = 1000;
export const MAX_KEYTERM_CHARS = 49;
export const MAX_KEYTERM_WORDS = 5;
export const MAX_SPEAKERS = 32;

/**
 * What is wrong with the settings, by field (empty when they can be sent): the rules the API
 * checks, so that the form says so before the upload rather than after it.
 */
export function settingsProblems(s: TranscriptionSettings): Partial<Record<'numSpeakers' | 'keyterms', string>> {
  const out: Partial<Record<'numSpeakers' | 'keyterms', string>> = {};
  if (s.diarize && !s.multiChannel && s.numSpeakers.trim() !== '') {
    const n = Number(s.numSpeakers);
    if (!Number.isInteger(n) || n < 1 || n > MAX_SPEAKERS) out.numSpeakers = `A whole number from 1 to ${MAX_SPEAKERS}.`;
  }
  const terms = keytermList(s.keyterms);
  const long = terms.find((k) => Array.from(k).length > MAX_KEYTERM_CHARS || k.split(' ').length > MAX_KEYTERM_WORDS);
  if (terms.length > MAX_KEYTERMS) out.keyterms = `At most ${MAX_KEYTERMS} keyterms.`;
  else if (long) out.keyterms = `“${long.slice(0, 60)}” is too long: each keyterm under 50 characters and at most 5 words.`;
  return out;
}

/**
 * Adds the settings to the multipart form, leaving out what does not apply: speakers and roles
 * only with diarization and never with multichannel (each channel is one speaker), the output
 * style only with multichannel, and entities not with the combined style (the API refuses it).
 */
export function appendSettings(form: FormData, s: TranscriptionSettings): void {
  if (s.languageCode) form.append('language_code', s.languageCode);
  if (s.multiChannel) {
    form.append('use_multi_channel', 'true');
    form.append('multichannel_output_style', s.multichannelStyle);
  } else if (s.diarize) {
    form.append('diarize', 'true');
    if (s.numSpeakers.trim()) form.append('num_speakers', String(Number(s.numSpeakers)));
    if (s.detectSpeakerRoles) form.append('detect_speaker_roles', 'true');
  }
  if (s.entityDetection && !(s.multiChannel && s.multichannelStyle === 'combined')) {
    form.append('entity_detection', s.entityDetection);
    if (s.redact) {
      form.append('entity_redaction', s.entityDetection);
      form.append('entity_redaction_mode', s.redactionMode);
    }
  }
  for (const k of keytermList(s.keyterms)) form.append('keyterms', k);
}
