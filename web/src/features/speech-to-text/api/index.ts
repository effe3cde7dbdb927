import { client, unwrap, unwrapWithResponse, type paths, type Schemas } from '@/lib/api';
import { fileNameFromDisposition } from '@/lib/download';
import { uploadWithProgress, type ProgressHooks } from '@/lib/upload';
import { appendSettings, type TranscriptionSettings } from './model';

export type TranscriptSummary = Schemas['TranscriptSummary'];
export type TranscriptView = Schemas['TranscriptView'];
export type TranscriptsPage = Schemas['TranscriptsPage'];
export type TranscriptWord = Schemas['SpeechToTextWordResponseModel'];
export type DetectedEntity = Schemas['DetectedEntity'];
export type ExportFormat = paths['/api/speech-to-text/transcripts/{transcription_id}/export']['get']['parameters']['query']['format'];

export const TRANSCRIPTS_PAGE_SIZE = 30;

// Under 'workspace' so switching workspaces (which resets every query but the session) refetches them.
export const transcriptsQueryKey = ['workspace', 'transcripts'] as const;
export const transcriptQueryKey = (id: string) => ['workspace', 'transcripts', id] as const;

export const listTranscripts = (cursor?: string): Promise<TranscriptsPage> =>
  unwrap(
    client.GET('/api/speech-to-text/transcripts', {
      params: { query: { page_size: TRANSCRIPTS_PAGE_SIZE, cursor: cursor || undefined } },
    }),
  );

export const getTranscript = (id: string): Promise<TranscriptView> =>
  unwrap(client.GET('/api/speech-to-text/transcripts/{transcription_id}', { params: { path: { transcription_id: id } } }));

export const editTranscript = (id: string, body: Schemas['TranscriptEdit']): Promise<TranscriptView> =>
  unwrap(
    client.PATCH('/api/speech-to-text/transcripts/{transcription_id}', { params: { path: { transcription_id: id } }, body }),
  );

export const deleteTranscript = (id: string) =>
  unwrap(client.DELETE('/v1/speech-to-text/transcripts/{transcription_id}', { params: { path: { transcription_id: id } } }));

export const transcriptAudioUrl = (id: string) => `/api/speech-to-text/transcripts/${encodeURIComponent(id)}/audio`;

/** Downloads an export; the name comes from Content-Disposition. */
export async function exportTranscript(id: string, format: ExportFormat): Promise<{ blob: Blob; fileName: string }> {
  const { data: blob, response } = await unwrapWithResponse(
    client.GET('/api/speech-to-text/transcripts/{transcription_id}/export', {
      params: { path: { transcription_id: id }, query: { format } },
      parseAs: 'blob',
      headers: { Accept: '*/*' },
    }),
  );
  return { blob, fileName: fileNameFromDisposition(response.headers.get('content-disposition')) ?? `transcript.${format}` };
}

export interface UploadOptions extends ProgressHooks {
  settings?: TranscriptionSettings;
}

/** The transcript POST /v1/speech-to-text answers (its id names the stored transcript). */
export type Transcription = Schemas['SpeechToTextChunkResponseModel'];

/** Sends a file to POST /v1/speech-to-text with upload progress, and the chosen options. */
export async function uploadForTranscription(file: File, opts: UploadOptions = {}): Promise<Transcription> {
  const form = new FormData();
  form.append('model_id', 'scribe_v1');
  form.append('file', file, file.name);
  form.append('timestamps_granularity', 'word');
  if (opts.settings) appendSettings(form, opts.settings);
  const xhr = await uploadWithProgress({ ...opts, url: '/v1/speech-to-text', form, accept: 'application/json', size: file.size });
  return JSON.parse(xhr.responseText) as Transcription;
}
