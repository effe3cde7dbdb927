import { client, errorFromBody, unwrap, unwrapWithResponse, type paths, type Schemas } from '@/lib/api';
import { CSRF_COOKIE, CSRF_HEADER, readCookie } from '@/lib/cookies';
import { fileNameFromDisposition } from '@/lib/download';
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

export interface UploadOptions {
  settings?: TranscriptionSettings;
  /** Bytes sent so far of the whole request. */
  onUploadProgress?: (sent: number, total: number) => void;
  /** The whole file has been sent: the server is transcribing. */
  onUploaded?: () => void;
  signal?: AbortSignal;
}

/** The transcript POST /v1/speech-to-text answers (its id names the stored transcript). */
export type Transcription = Schemas['SpeechToTextChunkResponseModel'];

/**
 * Sends a file to POST /v1/speech-to-text through XMLHttpRequest, which (unlike fetch) reports
 * the upload's progress. The session cookie authenticates; the CSRF header goes with it.
 */
export function uploadForTranscription(file: File, opts: UploadOptions = {}): Promise<Transcription> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append('model_id', 'scribe_v1');
    form.append('file', file, file.name);
    form.append('timestamps_granularity', 'word');
    if (opts.settings) appendSettings(form, opts.settings);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/v1/speech-to-text');
    xhr.withCredentials = true;
    xhr.setRequestHeader('Accept', 'application/json');
    const csrf = readCookie(CSRF_COOKIE);
    if (csrf) xhr.setRequestHeader(CSRF_HEADER, csrf);
    xhr.upload.onprogress = (e) => opts.onUploadProgress?.(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.upload.onload = () => opts.onUploaded?.();
    xhr.onload = () => {
      let body: unknown = undefined;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        /* not JSON */
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as Transcription);
      else reject(errorFromBody(xhr.status, xhr.statusText, body));
    };
    xhr.onerror = () => reject(new Error('The upload failed: the server could not be reached.'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    opts.signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(form);
  });
}
