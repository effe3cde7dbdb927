import { api } from '@/lib/api-client';

export interface ApiKey {
  key_id: string;
  name: string;
  key_preview: string;
  created_at_unix: number;
}

export interface CreatedApiKey {
  key_id: string;
  name: string;
  xi_api_key: string;
  key_preview: string;
}

export const apiKeysQueryKey = ['api-keys'] as const;

export const listApiKeys = () => api.get<{ api_keys: ApiKey[] }>('/v1/user/api-keys');
export const createApiKey = (name: string) => api.post<CreatedApiKey>('/v1/user/create-api-key', { name });
export const deleteApiKey = (keyId: string) => api.delete<{ status: string }>('/v1/user/delete-api-key', { key_id: keyId });
