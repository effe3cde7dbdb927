import { client, unwrap, unwrapWithResponse, type Operations, type Schemas } from '@/lib/api';

export type Voice = Schemas['VoiceResponseModel'];
export type VoicesResponse = Schemas['GetVoicesV2ResponseModel'];
export type Model = Schemas['ModelResponseModel'];
export type OutputFormat = NonNullable<
  NonNullable<Operations['text_to_speech_full']['parameters']['query']>['output_format']
>;

/** The settings the app sends (all five set, unlike the API model where each is optional). */
export interface VoiceSettings {
  stability: number;
  similarity_boost: number;
  style: number;
  use_speaker_boost: boolean;
  speed: number;
}

/** Used until GET /v1/voices/settings/default answers (ElevenLabs defaults). */
export const FALLBACK_VOICE_SETTINGS: VoiceSettings = {
  stability: 0.5,
  similarity_boost: 0.75,
  style: 0,
  use_speaker_boost: true,
  speed: 1,
};

export const VOICE_PAGE_SIZE = 100;

export const getVoices = (search: string, signal?: AbortSignal) =>
  unwrap(client.GET('/v2/voices', { params: { query: { search: search || undefined, page_size: VOICE_PAGE_SIZE } }, signal }));

export const getModels = () => unwrap(client.GET('/v1/models'));

export async function getDefaultVoiceSettings(): Promise<VoiceSettings> {
  const s = await unwrap(client.GET('/v1/voices/settings/default'));
  return {
    stability: s.stability ?? FALLBACK_VOICE_SETTINGS.stability,
    similarity_boost: s.similarity_boost ?? FALLBACK_VOICE_SETTINGS.similarity_boost,
    style: s.style ?? FALLBACK_VOICE_SETTINGS.style,
    use_speaker_boost: s.use_speaker_boost ?? FALLBACK_VOICE_SETTINGS.use_speaker_boost,
    speed: s.speed ?? FALLBACK_VOICE_SETTINGS.speed,
  };
}

export interface GenerateRequest {
  voiceId: string;
  outputFormat: OutputFormat;
  text: string;
  modelId: string;
  voiceSettings: VoiceSettings;
}

export interface GeneratedAudio {
  blob: Blob;
  historyItemId: string | null;
  characterCost: number | null;
  requestId: string | null;
}

export async function generateSpeech(req: GenerateRequest): Promise<GeneratedAudio> {
  const { data: blob, response: res } = await unwrapWithResponse(
    client.POST('/v1/text-to-speech/{voice_id}', {
      params: { path: { voice_id: req.voiceId }, query: { output_format: req.outputFormat } },
      body: { text: req.text, model_id: req.modelId, voice_settings: req.voiceSettings },
      parseAs: 'blob',
      headers: { Accept: 'audio/*, application/json' },
    }),
  );
  const cost = res.headers.get('character-cost');
  return {
    blob,
    historyItemId: res.headers.get('history-item-id'),
    characterCost: cost === null ? null : Number(cost),
    requestId: res.headers.get('request-id'),
  };
}

/** Output formats offered in the UI (all playable by <audio>). */
export const OUTPUT_FORMATS: Array<{ value: OutputFormat; label: string }> = [
  { value: 'mp3_44100_128', label: 'MP3 · 44.1 kHz · 128 kbps' },
  { value: 'mp3_44100_192', label: 'MP3 · 44.1 kHz · 192 kbps' },
  { value: 'mp3_44100_96', label: 'MP3 · 44.1 kHz · 96 kbps' },
  { value: 'mp3_44100_64', label: 'MP3 · 44.1 kHz · 64 kbps' },
  { value: 'mp3_22050_32', label: 'MP3 · 22.05 kHz · 32 kbps' },
  { value: 'opus_48000_128', label: 'Opus · 48 kHz · 128 kbps' },
  { value: 'wav_44100', label: 'WAV · 44.1 kHz' },
];

export interface DialogueRequest {
  inputs: Array<{ text: string; voice_id: string }>;
  modelId: string;
  outputFormat: OutputFormat;
  stability: number;
}

/** POST /v1/text-to-dialogue: every line in its own voice, one audio. */
export async function generateDialogue(req: DialogueRequest): Promise<GeneratedAudio> {
  const { data: blob, response: res } = await unwrapWithResponse(
    client.POST('/v1/text-to-dialogue', {
      params: { query: { output_format: req.outputFormat } },
      body: { inputs: req.inputs, model_id: req.modelId, settings: { stability: req.stability } },
      parseAs: 'blob',
      headers: { Accept: 'audio/*, application/json' },
    }),
  );
  const cost = res.headers.get('character-cost');
  return {
    blob,
    historyItemId: res.headers.get('history-item-id'),
    characterCost: cost === null ? null : Number(cost),
    requestId: res.headers.get('request-id'),
  };
}
