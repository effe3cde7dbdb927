import { client, errorFromBody, unwrap, type Schemas } from '@/lib/api';
import { CSRF_COOKIE, CSRF_HEADER, readCookie } from '@/lib/cookies';

export type Voice = Schemas['VoiceResponseModel'];
export type Sample = Schemas['SampleResponseModel'];

// Under 'workspace' so switching workspaces (which resets every query but the session) refetches them.
export const voicesQueryKey = ['workspace', 'voice-lab', 'voices'] as const;
export const voiceQueryKey = (id: string) => ['workspace', 'voice-lab', 'voice', id] as const;

/** The workspace's own voices (cloned, designed…), newest first. */
export const listMyVoices = async (): Promise<Voice[]> => {
  const page = await unwrap(
    client.GET('/v2/voices', {
      params: { query: { voice_type: 'personal', page_size: 100, sort: 'created_at_unix', sort_direction: 'desc' } },
    }),
  );
  return page.voices;
};

export const getVoice = (id: string): Promise<Voice> =>
  unwrap(client.GET('/v1/voices/{voice_id}', { params: { path: { voice_id: id } } }));

export const deleteVoice = (id: string) => unwrap(client.DELETE('/v1/voices/{voice_id}', { params: { path: { voice_id: id } } }));

export const deleteSample = (voiceId: string, sampleId: string) =>
  unwrap(client.DELETE('/v1/voices/{voice_id}/samples/{sample_id}', { params: { path: { voice_id: voiceId, sample_id: sampleId } } }));

/** Where a sample's recording is served (the session cookie authenticates the GET). */
export const sampleAudioUrl = (voiceId: string, sampleId: string) =>
  `/v1/voices/${encodeURIComponent(voiceId)}/samples/${encodeURIComponent(sampleId)}/audio`;

/**
 * What a voice's play button plays: its public preview (premade voices) or, for a workspace
 * voice (which has none), its first recording.
 */
export const previewSource = (v: Voice): string | undefined =>
  v.preview_url ?? (v.samples?.[0] ? sampleAudioUrl(v.voice_id, v.samples[0].sample_id) : undefined);

/** Speech in a voice (POST /v1/text-to-speech/{voice_id}: charged like any generation), as mp3. */
export async function speak(voiceId: string, text: string): Promise<Blob> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'audio/mpeg, application/json' };
  const csrf = readCookie(CSRF_COOKIE);
  if (csrf) headers[CSRF_HEADER] = csrf;
  const res = await fetch(`/v1/text-to-speech/${encodeURIComponent(voiceId)}?output_format=mp3_44100_128`, {
    method: 'POST',
    credentials: 'same-origin',
    headers,
    body: JSON.stringify({ text, model_id: 'eleven_multilingual_v2' }),
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
  return res.blob();
}

/** Sends a multipart form with the session cookie and the CSRF header; JSON back, or an ApiError. */
export async function postForm<T>(path: string, form: FormData, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const csrf = readCookie(CSRF_COOKIE);
  if (csrf) headers[CSRF_HEADER] = csrf;
  const res = await fetch(path, { method: 'POST', body: form, credentials: 'same-origin', headers, signal });
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  if (!res.ok) throw errorFromBody(res.status, res.statusText, body);
  return body as T;
}

export interface VoiceFields {
  name: string;
  description?: string;
  files?: File[];
  removeBackgroundNoise?: boolean;
}

function voiceForm(f: VoiceFields): FormData {
  const form = new FormData();
  form.append('name', f.name.trim());
  if (f.description !== undefined) form.append('description', f.description);
  if (f.removeBackgroundNoise) form.append('remove_background_noise', 'true');
  for (const file of f.files ?? []) form.append('files', file, file.name);
  return form;
}

/** POST /v1/voices/add: an instant clone from the recordings. */
export const addVoice = (f: VoiceFields, signal?: AbortSignal) =>
  postForm<Schemas['AddVoiceIVCResponseModel']>('/v1/voices/add', voiceForm(f), signal);

/** POST /v1/voices/{id}/edit: rename, re-describe, add recordings (the clone is fitted again). */
export const editVoice = (id: string, f: VoiceFields) =>
  postForm<Schemas['EditVoiceResponseModel']>(`/v1/voices/${encodeURIComponent(id)}/edit`, voiceForm(f));

export const editVoiceSettings = (id: string, settings: Schemas['VoiceSettingsResponseModel']) =>
  unwrap(client.POST('/v1/voices/{voice_id}/settings/edit', { params: { path: { voice_id: id } }, body: settings }));
