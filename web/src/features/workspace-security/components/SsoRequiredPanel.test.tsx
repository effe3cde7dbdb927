import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { SsoRequiredPanel } from './SsoRequiredPanel';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const settings = (on: boolean) => ({
  user_auto_provisioning: { enabled: false, enabled_at_unix: null, enabled_by_user_email: null },
  sso_required: on,
  service_provider: { oidc_redirect_uri: 'x', saml_entity_id: 'x', saml_acs_url: 'x', saml_metadata_url: 'x' },
});
const domains = {
  domains: [
    { domain: 'acme.test', provider_id: 'p', provider_name: 'Okta', status: 'verified', verified: true, verified_at_unix: 1, verified_by_user_email: null, created_at_unix: 1, txt_record: { type: 'TXT', name: 'n', value: 'v' } },
    { domain: 'acme.org', provider_id: 'p', provider_name: 'Okta', status: 'pending', verified: false, verified_at_unix: null, verified_by_user_email: null, created_at_unix: 1, txt_record: { type: 'TXT', name: 'n', value: 'v' } },
  ],
};

function setup(initial: boolean) {
  let on = initial;
  const fetches = mockFetch({
    'GET /api/workspace/sso/settings': () => jsonResponse(settings(on)),
    'GET /api/workspace/sso/domains': () => jsonResponse(domains),
    'PATCH /api/workspace/sso/settings': ({ body }) => {
      on = (body as { sso_required: boolean }).sso_required;
      return jsonResponse(settings(on));
    },
  });
  renderWithProviders(<SsoRequiredPanel />);
  return fetches;
}

describe('Require SSO', () => {
  it('names the verified domains it applies to and asks before turning on', async () => {
    const { calls } = setup(false);
    const user = userEvent.setup();
    const toggle = await screen.findByRole('switch', { name: 'Require SSO' });
    expect(toggle).toHaveAttribute('aria-checked', 'false');
    expect(await screen.findByTestId('sso-required-domains')).toHaveTextContent('Applies to acme.test.');

    await user.click(toggle);
    expect(await screen.findByText(/People at acme\.test will only be able to sign in through your identity provider/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(calls.filter((c) => c.method === 'PATCH')).toHaveLength(0);

    await user.click(toggle);
    await user.click(await screen.findByRole('button', { name: 'Require SSO' }));
    await waitFor(() => expect(screen.getByRole('switch', { name: 'Require SSO' })).toHaveAttribute('aria-checked', 'true'));
    expect(calls.filter((c) => c.method === 'PATCH').map((c) => c.body)).toEqual([{ sso_required: true }]);
  });

  it('turns off at once, from the keyboard too', async () => {
    const { calls } = setup(true);
    const user = userEvent.setup();
    const toggle = await screen.findByRole('switch', { name: 'Require SSO' });
    expect(toggle).toHaveAttribute('aria-checked', 'true');
    toggle.focus();
    await user.keyboard(' ');
    await waitFor(() => expect(screen.getByRole('switch', { name: 'Require SSO' })).toHaveAttribute('aria-checked', 'false'));
    expect(calls.filter((c) => c.method === 'PATCH').map((c) => c.body)).toEqual([{ sso_required: false }]);
  });
});
