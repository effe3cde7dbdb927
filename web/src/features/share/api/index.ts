import { client, unwrap, type Schemas } from '@/lib/api';

export type SharedItem = Schemas['SharedHistoryItem'];

export const getSharedItem = (token: string) =>
  unwrap(client.GET('/api/share/{token}', { params: { path: { token } } }));
export const sharedAudioUrl = (token: string) => `/api/share/${encodeURIComponent(token)}/audio`;
