import { isApiError, httpErrorMessage } from '@/lib/api';

/** What the file picker offers: audio, and video (the server keeps only its sound). */
export const ACCEPTED_FILES = 'audio/*,video/*,.mp3,.wav,.m4a,.ogg,.oga,.opus,.flac,.webm,.aac,.mp4,.mov';

/** The isolator's limits (internal/isolate: at least 100 ms, at most an hour; 500 MB uploads). */
export const MAX_UPLOAD_BYTES = 500 * 1024 * 1024;
export const MAX_RECORDING_SECONDS = 60 * 60;

/** Credits per minute of audio (plan.IsolationCreditsPerMinute), for the note before an upload. */
export const CREDITS_PER_MINUTE = 1000;

/**
 * The estimated share (0…0.95) of an isolation done after `elapsed` seconds on the server. The
 * embedded RNNoise engine runs at about 10× real time on a small machine, plus decoding and
 * encoding; without the audio's duration the bar creeps towards 95 % on a 30-second guess.
 */
export function isolationProgress(elapsed: number, audioSeconds?: number): number {
  const expected = 1 + (audioSeconds && audioSeconds > 0 ? audioSeconds / 8 : 30 / 8);
  const p = 1 - Math.exp(-elapsed / expected);
  return Math.min(0.95, Math.max(0, p));
}

/** The message to show for a failed call: the server's own words when its error body had any. */
export function errorMessage(err: unknown): string {
  if (isApiError(err)) {
    const body = err.payload as { detail?: unknown } | null | undefined;
    if (body?.detail && err.message) return err.message;
    return httpErrorMessage(err);
  }
  if (err instanceof Error && err.message) return err.message;
  return httpErrorMessage(err);
}

/** A refused upload, said before sending it: too large for the server, or empty. */
export function checkFile(file: Blob): string | undefined {
  if (file.size === 0) return 'The file is empty.';
  if (file.size > MAX_UPLOAD_BYTES) return 'The file is larger than 500 MB, the most the voice isolator accepts.';
  return undefined;
}

/** The base of a file name: no folders, no extension. */
export function baseName(name: string): string {
  const file = name.split(/[/\\]/).pop() ?? '';
  const dot = file.lastIndexOf('.');
  return dot > 0 ? file.slice(0, dot) : file;
}

/** The download name of an isolated file: "<title>_isolated.mp3", without characters file systems refuse. */
export function isolatedFileName(title: string | null | undefined, extension = 'mp3'): string {
  const clean = baseName(title ?? '')
    .replace(/[<>:"/\\|?*\u0000-\u001f]/g, '')
    .trim()
    .replace(/\s+/g, '_')
    .slice(0, 80);
  return `${clean || 'audio'}_isolated.${extension}`;
}

// ---- recording (shared: @/lib/recording) ----

export { canRecord, microphoneError, recordingExtension, recordingFileName, recordingMimeType } from '@/lib/recording';
