import { client, unwrap, type Schemas } from '@/lib/api';
import type { KeyFormValue } from '@/lib/api-key-form';

export type ServiceAccount = Schemas['WorkspaceServiceAccountResponseModel'];
export type ServiceAccountKey = Schemas['WorkspaceApiKeyResponseModel'];
type EditBody = Schemas['Body_edit_service_account_api_key_v1_service_accounts__service_account_user_id__api_keys__api_key_id__patch'];

export const serviceAccountsQueryKey = ['workspace', 'service-accounts'] as const;

export const listServiceAccounts = () => unwrap(client.GET('/v1/service-accounts'));

export const createServiceAccount = (name: string) => unwrap(client.POST('/v1/service-accounts', { body: { name } }));

export const deleteServiceAccount = (id: string) =>
  unwrap(client.DELETE('/v1/service-accounts/{service_account_user_id}', { params: { path: { service_account_user_id: id } } }));

export const createServiceAccountKey = (id: string, v: KeyFormValue) =>
  unwrap(
    client.POST('/v1/service-accounts/{service_account_user_id}/api-keys', {
      params: { path: { service_account_user_id: id } },
      body: { name: v.name, permissions: v.permissions, character_limit: v.characterLimit ?? null },
    }),
  );

export const editServiceAccountKey = (id: string, keyId: string, body: EditBody) =>
  unwrap(
    client.PATCH('/v1/service-accounts/{service_account_user_id}/api-keys/{api_key_id}', {
      params: { path: { service_account_user_id: id, api_key_id: keyId } },
      body,
    }),
  );

export const deleteServiceAccountKey = (id: string, keyId: string) =>
  unwrap(
    client.DELETE('/v1/service-accounts/{service_account_user_id}/api-keys/{api_key_id}', {
      params: { path: { service_account_user_id: id, api_key_id: keyId } },
    }),
  );
