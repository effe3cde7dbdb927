import { client, errorFromBody, isApiError, httpErrorMessage, unwrap, type Schemas } from '@/lib/api';
import { CSRF_COOKIE, CSRF_HEADER, readCookie } from '@/lib/cookies';

export type Voice = Schemas['VoiceResponseModel'];
export type HistoryItem = Schemas['SpeechHistoryItemResponseModel'];

/** The speech-to-speech models (GET /v1/models lists them with can_do_voice_conversion). */
export const STS_MODELS = [
  { id: 'eleven_multilingual_sts_v2', name: 'Multilingual v2' },
  { id: 'eleven_english_sts_v2', name: 'English v2' },
] as const;

/** Credits per minute of recording (plan.STSCreditsPerMinute), for the note on the page. */
export const CREDITS_PER_MINUTE = 1000;
/** The largest recording accepted (internal/sts.DefaultMaxUpload). */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
/** The longest recording the page records (the server takes up to an hour). */
export const MAX_RECORDING_SECONDS = 10 * 60;
export const ACCEPTED_FILES = 'audio/*,video/*,.mp3,.wav,.m4a,.ogg,.oga,.opus,.flac,.webm,.aac,.mp4,.mov';

// Under 'workspace' so switching workspaces (which resets every query but the session) refetches them.
export const voicesQueryKey = ['workspace', 'sts-voices'] as const;
export const stsHistoryQueryKey = ['workspace', 'sts-history'] as const;

export const getVoices = () => unwrap(client.GET('/v2/voices', { params: { query: { page_size: 100 } } }));

/** The caller's speech-to-speech history (history items with source STS), newest first. */
export const getStsHistory = () => unwrap(client.GET('/v1/history', { params: { query: { source: 'STS', page_size: 20 } } }));

export const historyAudioUrl = (id: string) => `/v1/history/${encodeURIComponent(id)}/audio`;

/** What POST /v1/speech-to-speech/{voice_id} answered. */
export interface Converted {
  audio: Blob;
  id: string | null;
  credits: number | null;
}

export interface ConvertOptions {
  modelId: string;
  removeBackgroundNoise: boolean;
  signal?: AbortSignal;
}

/**
 * Sends a recording to POST /v1/speech-to-speech/{voice_id} (multipart field `audio`) and
 * resolves with the converted mp3. The session cookie authenticates, with the CSRF header.
 */
export async function convertSpeech(file: Blob, fileName: string, voiceId: string, opts: ConvertOptions): Promise<Converted> {
  const form = new FormData();
  form.append('audio', file, fileName);
  form.append('model_id', opts.modelId);
  form.append('remove_background_noise', String(opts.removeBackgroundNoise));
  const headers: Record<string, string> = { Accept: 'audio/mpeg, application/json' };
  const csrf = readCookie(CSRF_COOKIE);
  if (csrf) headers[CSRF_HEADER] = csrf;
  const res = await fetch(`/v1/speech-to-speech/${encodeURIComponent(voiceId)}?output_format=mp3_44100_128`, {
    method: 'POST',
    body: form,
    headers,
    credentials: 'same-origin',
    signal: opts.signal,
  });
  if (!res.ok) {
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      body = undefined;
    }
    throw errorFromBody(res.status, res.statusText, body);
  }
  const cost = res.headers.get('character-cost');
  return {
    audio: await res.blob(),
    id: res.headers.get('history-item-id'),
    credits: cost !== null && Number.isFinite(Number(cost)) ? Number(cost) : null,
  };
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

/** A refused upload, said before sending it. */
export function checkFile(file: Blob): string | undefined {
  if (file.size === 0) return 'The file is empty.';
  if (file.size > MAX_UPLOAD_BYTES) return 'The file is larger than 50 MB, the most speech to speech accepts.';
  return undefined;
}

/** "<recording>_<voice>.mp3", without characters file systems refuse. */
export function convertedFileName(source: string, voice: string): string {
  const part = (s: string) =>
    s
      .replace(/\.[^.]*$/, '')
      .replace(/[<>:"/\\|?*\u0000-\u001f]/g, '')
      .trim()
      .replace(/\s+/g, '_')
      .slice(0, 60);
  return `${part(source) || 'recording'}_${part(voice) || 'voice'}.mp3`;
}
