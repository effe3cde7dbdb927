import { apiFetch } from '../api-client';
import { downloadFileName, fileNameFromDisposition, saveBlob } from '../download';
import type { PlayerItem } from './store';

/**
 * Player download: history items through POST /v1/history/download (the
 * server names the file); anything else saves the source as audio/mpeg under
 * the item's file name (spec §8).
 */
export async function downloadPlayerItem(item: PlayerItem): Promise<void> {
  if (item.historyItemId) {
    const res = await apiFetch('/v1/history/download', {
      method: 'POST',
      json: { history_item_ids: [item.historyItemId] },
    });
    const blob = await res.blob();
    const name =
      fileNameFromDisposition(res.headers.get('content-disposition')) ??
      downloadFileName(item.fileName ?? item.text ?? item.title, item.outputFormat);
    saveBlob(blob, name);
    return;
  }
  const res = await fetch(item.src, { credentials: 'same-origin' });
  const data = await res.blob();
  const blob = data.type ? data : new Blob([data], { type: 'audio/mpeg' });
  saveBlob(blob, item.fileName ?? downloadFileName(item.title, item.outputFormat));
}
