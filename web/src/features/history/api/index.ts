import { client, unwrap, unwrapWithResponse, type HistoryItem, type Schemas } from '@/lib/api';
import { downloadFileName, fileNameFromDisposition } from '@/lib/download';

export type { HistoryItem };
export type HistoryFeedback = Schemas['HistoryFeedback'];
export type HistoryPage = Schemas['HistoryPageWithFeedback'];

export const HISTORY_PAGE_SIZE = 20;

export const historyQueryKey = ['history'] as const;

export const getHistory = (startAfter?: string): Promise<HistoryPage> =>
  unwrap(
    client.GET('/v1/history', {
      params: { query: { page_size: HISTORY_PAGE_SIZE, start_after_history_item_id: startAfter || undefined } },
    }),
  );

export const historyAudioUrl = (id: string) => `/v1/history/${encodeURIComponent(id)}/audio`;

export const deleteHistoryItem = (id: string) =>
  unwrap(client.DELETE('/v1/history/{history_item_id}', { params: { path: { history_item_id: id } } }));

export type FeedbackBody = Omit<HistoryFeedback, 'review_status'>;

export const submitFeedback = (id: string, body: FeedbackBody) =>
  unwrap(
    client.POST('/v1/history/{history_item_id}/feedback', {
      params: { path: { history_item_id: id } },
      // The server takes an empty text as "no words"; the document says null.
      body: { ...body, feedback: body.feedback.trim() ? body.feedback : null },
    }),
  );

export const getShareLink = (id: string) =>
  unwrap(client.GET('/v1/history/{history_item_id}/share-link', { params: { path: { history_item_id: id } } }));

/** Downloads one item; the file name comes from Content-Disposition (filename* preferred). */
export async function downloadHistoryItem(
  item: Pick<HistoryItem, 'history_item_id' | 'text' | 'output_format'>,
): Promise<{ blob: Blob; fileName: string }> {
  const { data: blob, response } = await unwrapWithResponse(
    client.POST('/v1/history/download', {
      body: { history_item_ids: [item.history_item_id] },
      parseAs: 'blob',
      headers: { Accept: 'audio/*, application/zip, application/json' },
    }),
  );
  const fileName =
    fileNameFromDisposition(response.headers.get('content-disposition')) ??
    downloadFileName(item.text || item.history_item_id, item.output_format ?? undefined);
  return { blob, fileName };
}

export * from './sharing';
