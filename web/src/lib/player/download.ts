import { client, unwrapWithResponse, type HistoryItem } from '../api';
import { downloadFileName, fileNameFromDisposition, saveBlob } from '../download';
import type { PlayerItem } from './store';

/**
 * Player download. With its history item fetched: POST /v1/history/download,
 * named by the server's Content-Disposition (filename* preferred), else the
 * item's file name from the history item. Without a history item (voice
 * previews, or the lookup failed): the source saved under the item's file
 * name, as audio/mpeg when it has no type (spec §8).
 */
export async function downloadPlayerItem(item: PlayerItem, historyItem: HistoryItem | null): Promise<void> {
  const fallbackName = item.fileName ?? downloadFileName(item.text || item.title, item.outputFormat);
  if (historyItem) {
    const { data: blob, response } = await unwrapWithResponse(
      client.POST('/v1/history/download', {
        body: { history_item_ids: [historyItem.history_item_id] },
        parseAs: 'blob',
        headers: { Accept: 'audio/*, application/zip, application/json' },
      }),
    );
    saveBlob(blob, fileNameFromDisposition(response.headers.get('content-disposition')) ?? fallbackName);
    return;
  }
  const res = await fetch(item.src, { credentials: 'same-origin' });
  if (!res.ok) throw new Error(`Download failed with status ${res.status}`);
  const data = await res.blob();
  const blob = data.type ? data : new Blob([data], { type: 'audio/mpeg' });
  saveBlob(blob, fallbackName);
}
