import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { ServiceAccountsPage } from './ServiceAccountsPage';

afterEach(() => vi.unstubAllGlobals());

const accounts = {
  'service-accounts': [
    {
      service_account_user_id: 'sa1',
      name: 'CI bot',
      created_at_unix: 1_700_000_000,
      'api-keys': [
        { name: 'deploy', hint: 'sk_…1234', key_id: 'k1', service_account_user_id: 'sa1', hashed_xi_api_key: 'h', is_disabled: false, permissions: ['text_to_speech'], character_limit: 50, character_count: 5 },
      ],
    },
  ],
};

const admin = {
  'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: true }),
  'GET /v1/service-accounts': () => jsonResponse(accounts),
};

describe('ServiceAccountsPage', () => {
  it('creates a service account', async () => {
    const { calls } = mockFetch({ ...admin, 'POST /v1/service-accounts': () => jsonResponse({ 'service-account-user-id': 'sa2' }) });
    const user = userEvent.setup();
    renderWithProviders(<ServiceAccountsPage />);
    await user.click(await screen.findByRole('button', { name: /Create service account/ }));
    await user.type(screen.getByLabelText('Name'), 'Nightly');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'Nightly' }));
  });

  it('creates a key (shown once), disables and edits a key, deletes the account after confirming', async () => {
    const { calls } = mockFetch({
      ...admin,
      'POST /v1/service-accounts/sa1/api-keys': () => jsonResponse({ 'xi-api-key': 'sk_sa_secret', key_id: 'k2' }),
      'PATCH /v1/service-accounts/sa1/api-keys/k1': () => jsonResponse({}),
      'DELETE /v1/service-accounts/sa1': () => jsonResponse({}),
    });
    const user = userEvent.setup();
    renderWithProviders(<ServiceAccountsPage />);
    expect(await screen.findByText('deploy')).toBeInTheDocument();
    expect(screen.getByText('5 / 50')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: /Create key/ }));
    await user.type(screen.getByLabelText('Name'), 'second');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByTestId('new-api-key')).toHaveTextContent('sk_sa_secret');
    expect(calls.find((c) => c.url.pathname === '/v1/service-accounts/sa1/api-keys')?.body).toEqual({ name: 'second', permissions: 'all', character_limit: null });
    await user.click(screen.getByRole('button', { name: 'Done' }));

    await user.click(screen.getByRole('switch', { name: 'deploy enabled' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ is_enabled: false }));

    await user.click(screen.getByRole('button', { name: 'Edit deploy' }));
    const limit = screen.getByLabelText('Character limit (optional)');
    await user.clear(limit);
    await user.type(limit, '75');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PATCH')[1]?.body).toEqual({ character_limit: 75 }));

    await user.click(screen.getByRole('button', { name: 'Delete service account CI bot' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('and its 1 API key will stop working');
    await user.click(within(dialog).getByRole('button', { name: 'Delete service account' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.url.pathname === '/v1/service-accounts/sa1')).toBe(true));
  });

  it('editors see a notice and nothing is fetched', async () => {
    const { calls } = mockFetch({ 'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: false }) });
    renderWithProviders(<ServiceAccountsPage />);
    expect(await screen.findByText(/Only workspace admins can manage service accounts/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Create service account/ })).toBeNull();
    expect(calls.some((c) => c.url.pathname === '/v1/service-accounts')).toBe(false);
  });
});
