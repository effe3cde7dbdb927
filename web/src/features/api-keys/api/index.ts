import { client, unwrap, type Schemas } from '@/lib/api';
import type { KeyFormValue, Permission } from '@/lib/api-key-form';

/**
 * A user API key as GET /v1/user/api-keys sends it: the documented APIKey model plus the
 * fields the server also sends (permissions, quota, enabled state; the reference's
 * WorkspaceApiKeyResponseModel names).
 */
export type ApiKey = Schemas['APIKey'] & {
  hint?: string;
  permissions?: Permission[] | null;
  is_disabled?: boolean;
  disable_reason?: string | null;
  character_limit?: number | null;
  character_count?: number | null;
};
export type CreatedApiKey = Schemas['CreatedAPIKey'];

export const apiKeysQueryKey = ['api-keys'] as const;

export const listApiKeys = () => unwrap(client.GET('/v1/user/api-keys')) as Promise<{ api_keys: ApiKey[] }>;

export const createApiKey = (v: KeyFormValue) =>
  unwrap(
    client.POST('/v1/user/create-api-key', {
      // The server also takes permissions and character_limit (documented on the edit route).
      body: { name: v.name, permissions: v.permissions, character_limit: v.characterLimit ?? null } as Schemas['CreateAPIKeyRequest'],
    }),
  );

export type EditApiKeyBody = Schemas['EditAPIKeyRequest'];

export const editApiKey = (body: EditApiKeyBody) => unwrap(client.POST('/v1/user/edit-api-key', { body }));

export const deleteApiKey = (keyId: string) =>
  unwrap(client.DELETE('/v1/user/delete-api-key', { params: { query: { key_id: keyId } } }));
