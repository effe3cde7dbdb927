import { httpErrorMessage, isApiError } from '@/lib/api';

/** The instant cloner's limits (internal/voice/clone.go). */
export const MAX_FILES = 25;
export const MAX_FILE_BYTES = 25 * 1024 * 1024;
export const MAX_TOTAL_BYTES = 100 * 1024 * 1024;
export const MAX_RECORDING_SECONDS = 10 * 60;
export const MAX_NAME_CHARS = 100;
export const MAX_DESCRIPTION_CHARS = 1000;

/** What the file picker offers. */
export const ACCEPTED_FILES = 'audio/*,video/*,.mp3,.wav,.m4a,.ogg,.oga,.opus,.flac,.webm,.aac,.mp4';

/** What a clone made here is, said plainly wherever one is made or shown. */
export const PARAMETRIC_NOTE =
  'Parametric clone: a base voice at your pitch, pace and timbre; not a neural clone. A neural cloner can be plugged in by configuration.';

const MB = 1024 * 1024;

/** Why a set of files cannot be sent (undefined when they can). */
export function checkFiles(files: File[]): string | undefined {
  if (files.length === 0) return 'Add at least one recording of the voice.';
  if (files.length > MAX_FILES) return `At most ${MAX_FILES} files per voice.`;
  for (const f of files) {
    if (f.size === 0) return `"${f.name}" is empty.`;
    if (f.size > MAX_FILE_BYTES) return `"${f.name}" is larger than ${MAX_FILE_BYTES / MB} MB.`;
    if (f.type && !f.type.startsWith('audio/') && !f.type.startsWith('video/')) return `"${f.name}" is not an audio file.`;
  }
  const total = files.reduce((n, f) => n + f.size, 0);
  if (total > MAX_TOTAL_BYTES) return `The files add up to more than ${MAX_TOTAL_BYTES / MB} MB.`;
  return undefined;
}

export interface CloneForm {
  name: string;
  description: string;
  files: File[];
  removeBackgroundNoise: boolean;
  consent: boolean;
}

/** Field errors of the clone form, by field (empty when it can be sent). */
export function validateClone(f: CloneForm): Partial<Record<'name' | 'description' | 'files' | 'consent', string>> {
  const errors: Partial<Record<'name' | 'description' | 'files' | 'consent', string>> = {};
  const name = f.name.trim();
  if (!name) errors.name = 'Give the voice a name.';
  else if (name.length > MAX_NAME_CHARS) errors.name = `At most ${MAX_NAME_CHARS} characters.`;
  if (f.description.length > MAX_DESCRIPTION_CHARS) errors.description = `At most ${MAX_DESCRIPTION_CHARS} characters.`;
  const files = checkFiles(f.files);
  if (files) errors.files = files;
  if (!f.consent) errors.consent = 'Confirm that you have the right to clone this voice.';
  return errors;
}

/** The message of a failed call for people: the server's own (it names the file or the limit). */
export function errorMessage(err: unknown): string {
  if (isApiError(err)) return httpErrorMessage(err);
  if (err instanceof Error) return err.message;
  return 'Something went wrong.';
}

/** "1.5 MB", "820 KB". */
export function formatBytes(n: number): string {
  if (n >= MB) return `${(n / MB).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(n / 1024))} KB`;
}

/** "0:07", "1:05". */
export function formatDuration(secs: number | null | undefined): string {
  if (secs == null || !Number.isFinite(secs)) return '–';
  const s = Math.round(secs);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
