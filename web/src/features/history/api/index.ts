import { api, apiFetch } from '@/lib/api-client';
import { downloadFileName, fileNameFromDisposition } from '@/lib/download';

export interface HistoryFeedback {
  thumbs_up: boolean;
  feedback: string;
  emotions: boolean;
  inaccurate_clone: boolean;
  glitches: boolean;
  audio_quality: boolean;
  other: boolean;
  review_status?: 'not_reviewed' | 'reviewed';
}

export interface HistoryItem {
  history_item_id: string;
  voice_id?: string;
  voice_name?: string;
  voice_category?: string;
  model_id?: string;
  text?: string;
  date_unix: number;
  character_count_change_from: number;
  character_count_change_to: number;
  content_type?: string;
  state?: 'created' | 'deleted' | 'processing';
  settings?: Record<string, unknown> | null;
  feedback?: HistoryFeedback | null;
  output_format?: string;
}

export interface HistoryPage {
  history: HistoryItem[];
  has_more: boolean;
  last_history_item_id: string | null;
  scanned_until?: number | null;
}

export const HISTORY_PAGE_SIZE = 20;

export const historyQueryKey = ['history'] as const;

export const getHistory = (startAfter?: string) =>
  api.get<HistoryPage>('/v1/history', { page_size: HISTORY_PAGE_SIZE, start_after_history_item_id: startAfter });

export const historyAudioUrl = (id: string) => `/v1/history/${encodeURIComponent(id)}/audio`;

export const deleteHistoryItem = (id: string) => api.delete<{ status: string }>(`/v1/history/${encodeURIComponent(id)}`);

export type FeedbackBody = Omit<HistoryFeedback, 'review_status'>;

export const submitFeedback = (id: string, body: FeedbackBody) =>
  api.post<{ status: string }>(`/v1/history/${encodeURIComponent(id)}/feedback`, body);

export const getShareLink = (id: string) =>
  api.get<{ share_link: string; public_user_name?: string }>(`/v1/history/${encodeURIComponent(id)}/share-link`);

/** Downloads one item; the file name comes from Content-Disposition. */
export async function downloadHistoryItem(item: HistoryItem): Promise<{ blob: Blob; fileName: string }> {
  const res = await apiFetch('/v1/history/download', {
    method: 'POST',
    json: { history_item_ids: [item.history_item_id] },
  });
  const blob = await res.blob();
  const fileName =
    fileNameFromDisposition(res.headers.get('content-disposition')) ??
    downloadFileName(item.text ?? item.history_item_id, item.output_format);
  return { blob, fileName };
}
