import { ApiError, client, httpErrorMessage, unwrap, type Schemas } from '@/lib/api';

/** A workspace's claim on an email domain (GET /api/workspace/sso/domains). */
export type SsoDomain = Schemas['SSODomain'];

/**
 * Under the providers' key: adding, editing or removing a provider (which invalidates
 * ['workspace', 'sso', 'providers']) refreshes the domain list too.
 */
export const ssoDomainsQueryKey = ['workspace', 'sso', 'providers', 'domains'] as const;
/** The same key as workspace-security's SSO settings query, so both screens share the cache. */
export const ssoSettingsKey = ['workspace', 'sso', 'settings'] as const;

export const listSsoDomains = () => unwrap(client.GET('/api/workspace/sso/domains'));

/** Asks the server to look up the domain's TXT record; the error's message says what to publish. */
export const verifySsoDomain = (domain: string) =>
  unwrap(client.POST('/api/workspace/sso/domains/{domain}/verify', { params: { path: { domain } } }));

export const getSsoSettings = () => unwrap(client.GET('/api/workspace/sso/settings'));

export const setSsoRequired = (on: boolean) =>
  unwrap(client.PATCH('/api/workspace/sso/settings', { body: { sso_required: on } }));

/**
 * The text of a failed verification. The server's own message names the record to publish, for
 * its DNS failure (502) too, which the generic helper would hide.
 */
export function verifyErrorText(err: unknown): string {
  if (err instanceof ApiError && err.errorType?.startsWith('sso_domain_') && err.message) return err.message;
  return httpErrorMessage(err);
}
