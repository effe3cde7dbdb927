import { client, unwrap, type Schemas } from '@/lib/api';
import { postForm } from './index';

// Professional voice cloning (the /v1/voices/pvc routes): the wizard's calls.

export type PvcSample = Schemas['SampleResponseModel'];
export type Separation = Schemas['SpeakerSeparationResponseModel'];

export const createPvc = (name: string, language: string) =>
  unwrap(client.POST('/v1/voices/pvc', { body: { name: name.trim(), language } }));

export const addPvcSamples = (voiceId: string, files: File[]) => {
  const form = new FormData();
  for (const f of files) form.append('files', f, f.name);
  return postForm<PvcSample[]>(`/v1/voices/pvc/${encodeURIComponent(voiceId)}/samples`, form);
};

const sample = (voiceId: string, sampleId: string) => ({ path: { voice_id: voiceId, sample_id: sampleId } });

export const waveform = (voiceId: string, sampleId: string) =>
  unwrap(client.GET('/v1/voices/pvc/{voice_id}/samples/{sample_id}/waveform', { params: sample(voiceId, sampleId) }));

export const editPvcSample = (voiceId: string, sampleId: string, body: Schemas['Body_Update_PVC_voice_sample_v1_voices_pvc__voice_id__samples__sample_id__post']) =>
  unwrap(client.POST('/v1/voices/pvc/{voice_id}/samples/{sample_id}', { params: sample(voiceId, sampleId), body }));

export const separateSpeakers = (voiceId: string, sampleId: string) =>
  unwrap(client.POST('/v1/voices/pvc/{voice_id}/samples/{sample_id}/separate-speakers', { params: sample(voiceId, sampleId) }));

export const speakers = (voiceId: string, sampleId: string) =>
  unwrap(client.GET('/v1/voices/pvc/{voice_id}/samples/{sample_id}/speakers', { params: sample(voiceId, sampleId) }));

/** The captcha sentence to read (the reference gives the answer no schema: Timbre sends {text}). */
export async function captcha(voiceId: string): Promise<string> {
  const res = await fetch(`/v1/voices/pvc/${encodeURIComponent(voiceId)}/captcha`, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  const body = (await res.json()) as { text?: string };
  if (!res.ok || !body.text) throw new Error('The captcha could not be loaded.');
  return body.text;
}

export const verifyCaptcha = (voiceId: string, recording: File) => {
  const form = new FormData();
  form.append('recording', recording, recording.name);
  return postForm<{ status: string }>(`/v1/voices/pvc/${encodeURIComponent(voiceId)}/captcha`, form);
};

export const train = (voiceId: string, modelId = 'eleven_multilingual_v2') =>
  unwrap(client.POST('/v1/voices/pvc/{voice_id}/train', { params: { path: { voice_id: voiceId } }, body: { model_id: modelId } }));
