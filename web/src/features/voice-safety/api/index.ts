import { client, errorFromBody, unwrap, type Schemas } from '@/lib/api';
import { CSRF_COOKIE, CSRF_HEADER, readCookie } from '@/lib/cookies';

export type Voice = Schemas['VoiceResponseModel'];
export type Captcha = Schemas['VoiceCaptchaResponse'];
export type SafetyControl = 'BAN' | 'CAPTCHA';

/** The longest captcha reading the dialog records (the server takes up to 60 s). */
export const MAX_CAPTCHA_SECONDS = 30;

// Under 'workspace' so switching workspaces (which resets every query but the session) refetches them.
export const safetyVoicesQueryKey = ['workspace', 'safety-voices'] as const;

export const getVoices = () => unwrap(client.GET('/v2/voices', { params: { query: { page_size: 100 } } }));

/** A new sentence to read for a voice under CAPTCHA (GET /v1/voices/{voice_id}/captcha). */
export const getCaptcha = (voiceId: string) =>
  unwrap(client.GET('/v1/voices/{voice_id}/captcha', { params: { path: { voice_id: voiceId } } }));

/**
 * Sends the reading of the sentence to POST /v1/voices/{voice_id}/captcha (multipart field
 * `recording`); rejects with the server's message when it does not match.
 */
export async function postCaptcha(voiceId: string, file: Blob, fileName: string) {
  const form = new FormData();
  form.append('recording', file, fileName);
  const headers: Record<string, string> = { Accept: 'application/json' };
  const csrf = readCookie(CSRF_COOKIE);
  if (csrf) headers[CSRF_HEADER] = csrf;
  const res = await fetch(`/v1/voices/${encodeURIComponent(voiceId)}/captcha`, {
    method: 'POST',
    body: form,
    headers,
    credentials: 'same-origin',
  });
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  if (!res.ok) throw errorFromBody(res.status, res.statusText, body);
  return body as Schemas['VoiceCaptchaVerifyResponse'];
}

/** The control a voice is under (BAN or CAPTCHA), or null. */
export function controlOf(v: Pick<Voice, 'safety_control'>): SafetyControl | null {
  const c = v.safety_control;
  return c === 'BAN' || c === 'ENTERPRISE_BAN' ? 'BAN' : c === 'CAPTCHA' || c === 'ENTERPRISE_CAPTCHA' ? 'CAPTCHA' : null;
}

/**
 * The voices whose control changed to BAN or CAPTCHA since the last list (seen: voice id →
 * control). The first list (seen null) flags nothing: a dialog opens only when a voice is
 * newly flagged, not for what was already so when the page loaded.
 */
export function newlyFlagged(seen: ReadonlyMap<string, SafetyControl | null> | null, voices: readonly Voice[]) {
  if (!seen) return [];
  return voices.flatMap((v) => {
    const c = controlOf(v);
    return c && seen.has(v.voice_id) && seen.get(v.voice_id) !== c ? [{ voice: v, control: c }] : [];
  });
}
