// Recording from the microphone in the browser (MediaRecorder): shared by the voice isolator, the
// voice lab and speech to speech.

/** True when this browser can record from a microphone (getUserMedia and MediaRecorder). */
export function canRecord(): boolean {
  return (
    typeof navigator !== 'undefined' &&
    typeof navigator.mediaDevices?.getUserMedia === 'function' &&
    typeof globalThis.MediaRecorder === 'function'
  );
}

/** Containers MediaRecorder is asked for, best first (Chromium and Firefox: WebM/Opus; Safari: MP4). */
const RECORDING_TYPES = ['audio/webm;codecs=opus', 'audio/webm', 'audio/ogg;codecs=opus', 'audio/mp4'];

/** The recording type this browser supports, or '' to let it choose. */
export function recordingMimeType(): string {
  const isSupported = globalThis.MediaRecorder?.isTypeSupported?.bind(globalThis.MediaRecorder);
  if (!isSupported) return '';
  return RECORDING_TYPES.find((t) => isSupported(t)) ?? '';
}

/** The file extension of a recording's MIME type. */
export function recordingExtension(mimeType: string): string {
  if (mimeType.includes('ogg')) return 'ogg';
  if (mimeType.includes('mp4') || mimeType.includes('aac')) return 'm4a';
  return 'webm';
}

/** "Recording 2026-11-24 09-05-33.webm": the name a recording is uploaded and kept under. */
export function recordingFileName(when: Date, mimeType: string): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())} ${pad(when.getHours())}-${pad(when.getMinutes())}-${pad(when.getSeconds())}`;
  return `Recording ${stamp}.${recordingExtension(mimeType)}`;
}

/** Why the microphone could not be opened, for people. */
export function microphoneError(err: unknown): string {
  const name = err instanceof DOMException || err instanceof Error ? err.name : '';
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return "Microphone access was denied. Allow it in the browser's site settings, then try again.";
    case 'NotFoundError':
    case 'OverconstrainedError':
      return 'No microphone was found. Connect one, then try again.';
    case 'NotReadableError':
      return 'The microphone is in use by another application or could not be started.';
    default:
      return `The microphone could not be opened${err instanceof Error && err.message ? `: ${err.message}` : '.'}`;
  }
}
