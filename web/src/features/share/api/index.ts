import { api } from '@/lib/api-client';

export interface SharedItem {
  text: string;
  voice_name: string;
  date_unix: number;
  audio_url?: string;
}

export const getSharedItem = (token: string) => api.get<SharedItem>(`/api/share/${encodeURIComponent(token)}`);
export const sharedAudioUrl = (token: string) => `/api/share/${encodeURIComponent(token)}/audio`;
