import { client, unwrap, type Schemas } from '@/lib/api';

export type VoicePreviews = Schemas['VoicePreviewsResponseModel'];
export type VoicePreview = Schemas['VoicePreviewResponseModel'];
export type DesignRequest = Schemas['VoiceDesignRequestModel'];
export type RemixRequest = Schemas['VoiceRemixRequestModel'];
export type SavedVoice = Schemas['VoiceResponseModel'];

// Under 'workspace' so switching workspaces (which resets every query but the session) refetches it.
export const voicesQueryKey = ['workspace', 'voices'] as const;

/** Previews play in the browser as mp3 at 128 kbps (every plan may ask for it). */
const query = { output_format: 'mp3_44100_128' as const };

/** Three previews of a described voice (POST /v1/text-to-voice/design). */
export const designVoice = (body: DesignRequest): Promise<VoicePreviews> =>
  unwrap(client.POST('/v1/text-to-voice/design', { params: { query }, body }));

/** Three previews of an existing voice moved by a description (POST /v1/text-to-voice/{voice_id}/remix). */
export const remixVoice = (voiceId: string, body: RemixRequest): Promise<VoicePreviews> =>
  unwrap(client.POST('/v1/text-to-voice/{voice_id}/remix', { params: { path: { voice_id: voiceId }, query }, body }));

/** Saves a preview as a voice of the workspace (POST /v1/text-to-voice). */
export const saveVoice = (body: Schemas['Body_Create_a_new_voice_from_voice_preview_v1_text_to_voice_post']): Promise<SavedVoice> =>
  unwrap(client.POST('/v1/text-to-voice', { body }));

/** The voices a remix can start from (the workspace's own and the premade ones). */
export const listVoices = () => unwrap(client.GET('/v1/voices', {}));
