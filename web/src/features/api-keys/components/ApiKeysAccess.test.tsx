import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { ApiKeysPage, KEYS_NOT_ALLOWED } from './ApiKeysPage';

afterEach(() => vi.unstubAllGlobals());

const keys = {
  api_keys: [
    { key_id: 'k1', name: 'CI', key_preview: 'sk_…abcd', created_at_unix: 1_700_000_000, permissions: null, is_disabled: false, character_limit: null, character_count: 0 },
  ],
};

function setup(access: unknown) {
  return mockFetch({
    'GET /v1/user/api-keys': () => jsonResponse(keys),
    'GET /api/workspace/access': () => jsonResponse(access),
  });
}

describe('API keys and group features', () => {
  it('hides creating and editing keys when the groups leave create_user_api_key out', async () => {
    setup({ role: 'editor', features: ['text_to_speech'], duties: [] });
    renderWithProviders(<ApiKeysPage />);
    expect(await screen.findByText(KEYS_NOT_ALLOWED)).toBeInTheDocument();
    expect(await screen.findByText('CI')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Create API key/ })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Edit CI' })).toBeNull();
    expect(screen.getByRole('switch', { name: 'CI enabled' })).toBeDisabled();
    // Deleting a key stays possible.
    expect(screen.getByRole('button', { name: 'Delete CI' })).toBeEnabled();
  });

  it.each([
    ['an admin', { role: 'admin', features: null, duties: [] }],
    ['an editor without limits', { role: 'editor', features: null, duties: [] }],
    ['an editor whose groups allow it', { role: 'editor', features: ['create_user_api_key'], duties: [] }],
  ])('offers creating keys to %s', async (_who, access) => {
    const { calls } = setup(access);
    renderWithProviders(<ApiKeysPage />);
    expect(await screen.findByText('CI')).toBeInTheDocument();
    await waitFor(() => expect(calls.some((c) => c.url.pathname === '/api/workspace/access')).toBe(true));
    expect(screen.getByRole('button', { name: /Create API key/ })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Edit CI' })).toBeInTheDocument();
    expect(screen.queryByText(KEYS_NOT_ALLOWED)).toBeNull();
  });
});
