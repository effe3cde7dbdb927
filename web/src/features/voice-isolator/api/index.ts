import { client, errorFromBody, unwrap, type Schemas } from '@/lib/api';
import { CSRF_COOKIE, CSRF_HEADER, readCookie } from '@/lib/cookies';

export type IsolationItem = Schemas['AudioIsolationHistoryItemResponseModel'];
export type IsolationPage = Schemas['GetAudioIsolationHistoryResponseModel'];

export const ISOLATE_PATH = '/v1/audio-isolation';
export const HISTORY_PAGE_SIZE = 20;

// Under 'workspace' so switching workspaces (which resets every query but the session) refetches it.
export const isolationHistoryQueryKey = ['workspace', 'audio-isolation-history'] as const;

/** One page (1-based) of the caller's isolations, newest first. */
export const listIsolations = (page: number): Promise<IsolationPage> =>
  unwrap(client.GET('/v1/audio-isolation/history', { params: { query: { page, page_size: HISTORY_PAGE_SIZE } } }));

export const deleteIsolation = (id: string) =>
  unwrap(client.DELETE('/v1/audio-isolation/history/{history_item_id}', { params: { path: { history_item_id: id } } }));

/** Where an isolation's audio is served (the session cookie authenticates the GET). */
export const isolationAudioUrl = (item: Pick<IsolationItem, 'id' | 'download_url'>) =>
  item.download_url ?? `/v1/audio-isolation/history/${encodeURIComponent(item.id)}/audio`;

/** What POST /v1/audio-isolation answered: the isolated audio and its headers. */
export interface Isolated {
  audio: Blob;
  /** history-item-id: the isolation's entry in the history. */
  id: string | null;
  /** character-cost: the credits charged. */
  credits: number | null;
}

export interface IsolateOptions {
  /** Bytes of the request sent so far, of total. */
  onUploadProgress?: (sent: number, total: number) => void;
  /** The whole file has been sent: the server is isolating. */
  onUploaded?: () => void;
  signal?: AbortSignal;
}

/** The error body of a failed answer (a Blob, since the request expects audio). */
async function errorBody(response: unknown): Promise<unknown> {
  try {
    const text = response instanceof Blob ? await response.text() : typeof response === 'string' ? response : '';
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined; // not JSON: the status text speaks
  }
}

/**
 * Sends audio to POST /v1/audio-isolation (multipart field `audio`) through XMLHttpRequest, which
 * (unlike fetch) reports the upload's progress. The session cookie authenticates, with the CSRF
 * header. Resolves with the isolated audio; rejects with an ApiError carrying the server's message.
 */
export function isolateAudio(file: Blob, fileName: string, opts: IsolateOptions = {}): Promise<Isolated> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append('audio', file, fileName);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', ISOLATE_PATH);
    xhr.withCredentials = true;
    xhr.responseType = 'blob';
    xhr.setRequestHeader('Accept', 'audio/mpeg, application/json');
    const csrf = readCookie(CSRF_COOKIE);
    if (csrf) xhr.setRequestHeader(CSRF_HEADER, csrf);
    xhr.upload.onprogress = (e) => opts.onUploadProgress?.(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.upload.onload = () => opts.onUploaded?.();
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        const type = xhr.getResponseHeader('content-type') || 'audio/mpeg';
        const audio = xhr.response instanceof Blob ? xhr.response : new Blob([xhr.response as BlobPart], { type });
        const cost = Number(xhr.getResponseHeader('character-cost'));
        resolve({
          audio,
          id: xhr.getResponseHeader('history-item-id'),
          credits: xhr.getResponseHeader('character-cost') !== null && Number.isFinite(cost) ? cost : null,
        });
        return;
      }
      void errorBody(xhr.response).then((body) => reject(errorFromBody(xhr.status, xhr.statusText, body)));
    };
    xhr.onerror = () => reject(new Error('The upload failed: the server could not be reached.'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    opts.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}
