import { client, unwrap, type Schemas } from '@/lib/api';

export type ApiKey = Schemas['APIKey'];
export type CreatedApiKey = Schemas['CreatedAPIKey'];

export const apiKeysQueryKey = ['api-keys'] as const;

export const listApiKeys = () => unwrap(client.GET('/v1/user/api-keys'));
export const createApiKey = (name: string) => unwrap(client.POST('/v1/user/create-api-key', { body: { name } }));
export const deleteApiKey = (keyId: string) =>
  unwrap(client.DELETE('/v1/user/delete-api-key', { params: { query: { key_id: keyId } } }));
