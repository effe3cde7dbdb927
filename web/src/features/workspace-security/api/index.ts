import { client, unwrap, type Schemas } from '@/lib/api';

export type SSOProvider = Schemas['SSOProvider'];
export type SSOSettings = Schemas['SSOSettings'];
export type SSOProviderCreate = Schemas['SSOProviderCreateRequest'];
export type SSOProviderUpdate = Schemas['SSOProviderUpdateRequest'];

/** Spec §8 messages. */
export const MESSAGES = {
  optOutUpdated: 'Workspace training opt out setting successfully updated.',
  optOutFailed: 'Error when updating workspace training opt out setting',
  providersFailed: 'Error when fetching workspace identity providers',
  adminOnly: 'Only workspace admins can change this setting.',
} as const;

export const providersQueryKey = ['workspace', 'sso', 'providers'] as const;
export const ssoSettingsQueryKey = ['workspace', 'sso', 'settings'] as const;
export const workspaceSettingsQueryKey = ['workspace', 'settings'] as const;

export const listProviders = () => unwrap(client.GET('/v1/workspace/identity-providers'));
export const createProvider = (body: SSOProviderCreate) => unwrap(client.POST('/api/workspace/sso/providers', { body }));
export const updateProvider = (id: string, body: SSOProviderUpdate) =>
  unwrap(client.PATCH('/api/workspace/sso/providers/{provider_id}', { params: { path: { provider_id: id } }, body }));
export const deleteProvider = (id: string) =>
  unwrap(client.DELETE('/api/workspace/sso/providers/{provider_id}', { params: { path: { provider_id: id } } }));
export const getSSOSettings = () => unwrap(client.GET('/api/workspace/sso/settings'));
export const setAutoProvisioning = (enabled: boolean) =>
  unwrap(client.PATCH('/api/workspace/sso/settings', { body: { user_auto_provisioning_enabled: enabled } }));

export const setTrainingOptOut = (optOut: boolean) =>
  unwrap(client.PUT('/v1/workspace/update-workspace', { params: { query: { training_opt_out: optOut } } }));

/**
 * The workspace's security settings (admins): GET/PATCH /api/workspace/settings. The server
 * sends training_opt_out as the spec's { training_opt_out, timestamp_unix } object; the
 * screens use the flattened WorkspaceSettings below.
 */
export interface WorkspaceSettings {
  training_opt_out: boolean;
  training_opt_out_at_unix?: number | null;
  mfa_required_for_users: boolean;
  session_inactivity_timeout: number | null;
}
export type WorkspaceSettingsPatch = Schemas['WorkspaceSecuritySettingsUpdate'];

export async function getWorkspaceSettings(): Promise<WorkspaceSettings> {
  return normaliseSettings(await unwrap(client.GET('/api/workspace/settings')));
}

export async function patchWorkspaceSettings(patch: WorkspaceSettingsPatch): Promise<WorkspaceSettings> {
  return normaliseSettings(await unwrap(client.PATCH('/api/workspace/settings', { body: patch })));
}

/** Accepts the flag as a boolean or as the spec's { training_opt_out, timestamp_unix } object. */
export function normaliseSettings(raw: object | null | undefined): WorkspaceSettings {
  const r = (raw ?? {}) as Record<string, unknown>;
  const opt = r.training_opt_out as boolean | { training_opt_out?: boolean; timestamp_unix?: number } | undefined;
  const optOut = typeof opt === 'object' && opt !== null ? opt.training_opt_out === true : opt === true;
  const optAt = typeof opt === 'object' && opt !== null ? (opt.timestamp_unix ?? null) : ((r.training_opt_out_at_unix as number | null | undefined) ?? null);
  const timeout = r.session_inactivity_timeout;
  return {
    training_opt_out: optOut,
    training_opt_out_at_unix: optAt,
    mfa_required_for_users: r.mfa_required_for_users === true,
    session_inactivity_timeout: typeof timeout === 'number' && timeout > 0 ? timeout : null,
  };
}

/** Inactivity timeouts offered (seconds; null = never). */
export const TIMEOUT_OPTIONS: ReadonlyArray<{ value: number | null; label: string }> = [
  { value: null, label: 'Never' },
  { value: 15 * 60, label: '15 minutes' },
  { value: 30 * 60, label: '30 minutes' },
  { value: 60 * 60, label: '1 hour' },
  { value: 4 * 3600, label: '4 hours' },
  { value: 8 * 3600, label: '8 hours' },
  { value: 24 * 3600, label: '24 hours' },
  { value: 7 * 24 * 3600, label: '7 days' },
];

export function timeoutLabel(seconds: number | null): string {
  const known = TIMEOUT_OPTIONS.find((o) => o.value === seconds);
  if (known) return known.label;
  if (seconds === null) return 'Never';
  if (seconds % 3600 === 0) return `${seconds / 3600} hours`;
  return `${Math.round(seconds / 60)} minutes`;
}

/** Domains typed as "a.com, b.com" or one per line → lower-case list without duplicates. */
export function parseDomains(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).map((d) => d.trim().toLowerCase().replace(/^@/, '')).filter(Boolean))];
}

export function validateProvider(
  type: 'oidc' | 'saml',
  f: { name: string; domains: string; issuer: string; clientId: string; clientSecret: string; metadataXml: string; entityId: string; ssoUrl: string; certificate: string },
  creating: boolean,
  hasSecret: boolean,
): Record<string, string> {
  const e: Record<string, string> = {};
  if (!f.name.trim()) e.name = 'Please enter a name.';
  const domains = parseDomains(f.domains);
  if (domains.length === 0) e.domains = 'Enter at least one email domain, e.g. example.com.';
  else if (domains.some((d) => !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(d))) e.domains = 'Enter domains like example.com, separated by commas.';
  if (type === 'oidc') {
    if (!/^https:\/\/\S+$/.test(f.issuer.trim())) e.issuer = 'Enter the issuer URL (https://…).';
    if (!f.clientId.trim()) e.clientId = 'Enter the client ID.';
    if (creating && !hasSecret && !f.clientSecret) e.clientSecret = 'Enter the client secret.';
  } else if (creating && !f.metadataXml.trim()) {
    if (!f.entityId.trim()) e.entityId = 'Enter the IdP entity ID, or paste the IdP metadata XML.';
    if (!/^https:\/\/\S+$/.test(f.ssoUrl.trim())) e.ssoUrl = 'Enter the IdP sign-in URL (https://…).';
    if (!f.certificate.trim()) e.certificate = 'Paste the IdP signing certificate (PEM).';
  }
  return e;
}
