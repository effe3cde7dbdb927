import { client, unwrap, type Schemas } from '@/lib/api';
import { uploadWithProgress, type ProgressHooks } from '@/lib/upload';

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

export type IsolateOptions = ProgressHooks;

/**
 * Sends audio to POST /v1/audio-isolation (multipart field `audio`) with upload progress.
 * Resolves with the isolated audio; rejects with an ApiError carrying the server's message.
 */
export async function isolateAudio(file: Blob, fileName: string, opts: IsolateOptions = {}): Promise<Isolated> {
  const form = new FormData();
  form.append('audio', file, fileName);
  const xhr = await uploadWithProgress({ ...opts, url: ISOLATE_PATH, form, accept: 'audio/mpeg, application/json', responseType: 'blob', size: file.size });
  const type = xhr.getResponseHeader('content-type') || 'audio/mpeg';
  const audio = xhr.response instanceof Blob ? xhr.response : new Blob([xhr.response as BlobPart], { type });
  const cost = Number(xhr.getResponseHeader('character-cost'));
  return {
    audio,
    id: xhr.getResponseHeader('history-item-id'),
    credits: xhr.getResponseHeader('character-cost') !== null && Number.isFinite(cost) ? cost : null,
  };
}
