import type { components } from './schema';

/**
 * Shapes the server sends that api/openapi.json does not describe yet.
 * Keep this file small; move things into the document (and regenerate) instead.
 */

/** Feedback on a history item (spec §3). Sent by GET /v1/history and /v1/history/{id}. */
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

/** A history item: the OpenAPI model plus `feedback`, which the server sends but the document omits. */
export type HistoryItem = components['schemas']['SpeechHistoryItemResponseModel'] & {
  feedback?: HistoryFeedback | null;
};
