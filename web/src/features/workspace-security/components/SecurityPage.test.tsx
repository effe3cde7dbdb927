import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '@/lib/toast';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { normaliseSettings, parseDomains, validateProvider } from '../api';
import { SecurityPage } from './SecurityPage';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const ssoSettings = {
  user_auto_provisioning: { enabled: true, enabled_at_unix: 1_700_000_000, enabled_by_user_email: 'owner@example.com' },
  service_provider: {
    oidc_redirect_uri: 'https://timbre.example/api/sso/oidc/callback',
    saml_entity_id: 'https://timbre.example/api/sso/saml/metadata',
    saml_acs_url: 'https://timbre.example/api/sso/saml/acs',
    saml_metadata_url: 'https://timbre.example/api/sso/saml/metadata',
  },
};
const providers = {
  identity_providers: [
    { provider_id: 'p1', workspace_id: 'w1', type: 'oidc', name: 'Okta', enabled: true, domains: ['example.com'], issuer: 'https://okta.example', client_id: 'cid', has_client_secret: true, created_at_unix: 1, updated_at_unix: 1 },
  ],
};
// As the server sends it (training_opt_out is the spec's object).
const settings = {
  training_opt_out: { training_opt_out: false, timestamp_unix: null },
  mfa_required_for_users: false,
  session_inactivity_timeout: null,
  user_auto_provisioning: { enabled: false, enabled_at_unix: null, enabled_by_user_email: null },
};

const admin = (extra: Record<string, Parameters<typeof mockFetch>[0][string]> = {}) => ({
  'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: true }),
  'GET /api/workspace/settings': () => jsonResponse(settings),
  'GET /v1/workspace/identity-providers': () => jsonResponse(providers),
  'GET /api/workspace/sso/settings': () => jsonResponse(ssoSettings),
  ...extra,
});

describe('security rules', () => {
  it('parses domains and validates providers', () => {
    expect(parseDomains('Example.com, @b.io\nexample.com')).toEqual(['example.com', 'b.io']);
    const empty = { name: '', domains: '', issuer: '', clientId: '', clientSecret: '', metadataXml: '', entityId: '', ssoUrl: '', certificate: '' };
    expect(Object.keys(validateProvider('oidc', empty, true, false)).sort()).toEqual(['clientId', 'clientSecret', 'domains', 'issuer', 'name']);
    expect(Object.keys(validateProvider('saml', { ...empty, name: 'x', domains: 'a.io', metadataXml: '<x/>' }, true, false))).toEqual([]);
    expect(Object.keys(validateProvider('saml', { ...empty, name: 'x', domains: 'a.io' }, true, false)).sort()).toEqual(['certificate', 'entityId', 'ssoUrl']);
  });
  it('reads the opt-out flag as a boolean or as the spec object', () => {
    expect(normaliseSettings({ training_opt_out: { training_opt_out: true, timestamp_unix: 5 } }).training_opt_out).toBe(true);
    expect(normaliseSettings({ training_opt_out: true, session_inactivity_timeout: 0 })).toMatchObject({ training_opt_out: true, session_inactivity_timeout: null });
  });
});

describe('training opt-out (spec §5, §8)', () => {
  it('confirm stays disabled until the toggle differs; success toast', async () => {
    const success = vi.spyOn(toast, 'success');
    const { calls } = mockFetch(admin({ 'PUT /v1/workspace/update-workspace': () => jsonResponse({ status: 'ok', message: 'x', training_opt_out: true }) }));
    const user = userEvent.setup();
    renderWithProviders(<SecurityPage />);
    const toggle = await screen.findByRole('switch', { name: 'Opt out of model training' });
    const confirm = screen.getByRole('button', { name: 'Confirm' });
    expect(confirm).toBeDisabled();
    await user.click(toggle);
    expect(confirm).toBeEnabled();
    await user.click(toggle);
    expect(confirm).toBeDisabled();
    await user.click(toggle);
    await user.click(confirm);
    await waitFor(() => expect(success).toHaveBeenCalledWith('Workspace training opt out setting successfully updated.'));
    expect(calls.find((c) => c.method === 'PUT')?.url.search).toBe('?training_opt_out=true');
  });

  it('failure toast', async () => {
    const error = vi.spyOn(toast, 'error');
    mockFetch(admin({ 'PUT /v1/workspace/update-workspace': () => jsonResponse({ detail: { status: 'x', message: 'nope' } }, 500) }));
    const user = userEvent.setup();
    renderWithProviders(<SecurityPage />);
    await user.click(await screen.findByRole('switch', { name: 'Opt out of model training' }));
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(error).toHaveBeenCalledWith('Error when updating workspace training opt out setting'));
  });

  it('non-admins: toggle disabled with the tooltip; no SSO or sign-in policy', async () => {
    const { calls } = mockFetch({ 'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: false }) });
    const user = userEvent.setup();
    renderWithProviders(<SecurityPage />);
    const toggle = await screen.findByRole('switch', { name: 'Opt out of model training' });
    expect(toggle).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Confirm' })).toBeDisabled();
    await user.hover(screen.getByTestId('opt-out-locked'));
    expect((await screen.findAllByText('Only workspace admins can change this setting.')).length).toBeGreaterThan(0);
    expect(screen.queryByText('Single sign-on')).toBeNull();
    expect(calls.some((c) => c.url.pathname === '/v1/workspace/identity-providers')).toBe(false);
    // The settings route is admin-only: editors don't call it.
    expect(calls.some((c) => c.url.pathname === '/api/workspace/settings')).toBe(false);
  });
});

describe('SSO and sign-in policy', () => {
  it('shows providers, the SP values and who enabled auto-provisioning', async () => {
    mockFetch(admin());
    renderWithProviders(<SecurityPage />);
    expect(await screen.findByTestId('provider-Okta')).toHaveTextContent('example.com');
    expect(screen.getByText('https://timbre.example/api/sso/oidc/callback')).toBeInTheDocument();
    expect(screen.getByText('https://timbre.example/api/sso/saml/acs')).toBeInTheDocument();
    expect(screen.getByTestId('provisioning-by')).toHaveTextContent('enabled by owner@example.com on');
  });

  it('identity-provider fetch failure uses the §8 message', async () => {
    mockFetch(admin({ 'GET /v1/workspace/identity-providers': () => jsonResponse({}, 500) }));
    renderWithProviders(<SecurityPage />);
    expect(await screen.findByText('Error when fetching workspace identity providers')).toBeInTheDocument();
  });

  it('adds a SAML provider from metadata XML', async () => {
    const { calls } = mockFetch(admin({ 'POST /api/workspace/sso/providers': () => jsonResponse(providers.identity_providers[0], 201) }));
    const user = userEvent.setup();
    renderWithProviders(<SecurityPage />);
    await user.click(await screen.findByRole('button', { name: /Add provider/ }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByLabelText('SAML 2.0'));
    await user.type(within(dialog).getByLabelText('Name'), 'Entra');
    await user.type(within(dialog).getByLabelText('Email domains'), 'corp.example, corp.example.org');
    await user.click(within(dialog).getByLabelText('IdP metadata XML'));
    await user.paste('<EntityDescriptor/>');
    expect(within(dialog).queryByLabelText('IdP entity ID')).toBeNull();
    await user.click(within(dialog).getByRole('button', { name: 'Add provider' }));
    await waitFor(() =>
      expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
        type: 'saml',
        name: 'Entra',
        domains: ['corp.example', 'corp.example.org'],
        enabled: true,
        metadata_xml: '<EntityDescriptor/>',
      }),
    );
  });

  it('toggles auto-provisioning, MFA requirement and the inactivity timeout', async () => {
    const { calls } = mockFetch(
      admin({
        'PATCH /api/workspace/sso/settings': () => jsonResponse({ ...ssoSettings, user_auto_provisioning: { enabled: false, enabled_at_unix: null, enabled_by_user_email: null } }),
        'PATCH /api/workspace/settings': ({ body }) => jsonResponse({ ...settings, ...(body as object) }),
      }),
    );
    const user = userEvent.setup();
    renderWithProviders(<SecurityPage />);
    await user.click(await screen.findByRole('switch', { name: 'User auto-provisioning' }));
    await waitFor(() => expect(calls.find((c) => c.url.pathname === '/api/workspace/sso/settings' && c.method === 'PATCH')?.body).toEqual({ user_auto_provisioning_enabled: false }));
    await user.click(screen.getByRole('switch', { name: 'Require two-factor authentication' }));
    await waitFor(() => expect(calls.find((c) => c.url.pathname === '/api/workspace/settings' && c.method === 'PATCH')?.body).toEqual({ mfa_required_for_users: true }));
    await waitFor(() => expect(screen.getByRole('switch', { name: 'Require two-factor authentication' })).toHaveAttribute('aria-checked', 'true'));
    await user.selectOptions(screen.getByLabelText('Session inactivity timeout'), '1 hour');
    await waitFor(() =>
      expect(calls.filter((c) => c.url.pathname === '/api/workspace/settings' && c.method === 'PATCH')[1]?.body).toEqual({ session_inactivity_timeout: 3600 }),
    );
  });
});
