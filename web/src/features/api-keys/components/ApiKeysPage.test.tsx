import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { editBody, validateKeyForm } from '@/lib/api-key-form';
import { ApiKeysPage } from './ApiKeysPage';

afterEach(() => vi.unstubAllGlobals());

const keys = {
  api_keys: [
    { key_id: 'k1', name: 'CI', key_preview: 'sk_…abcd', created_at_unix: 1_700_000_000, permissions: null, is_disabled: false, character_limit: null, character_count: 12 },
    { key_id: 'k2', name: 'Reader', key_preview: 'sk_…efgh', created_at_unix: 1_700_000_000, permissions: ['voices_read'], is_disabled: true, character_limit: 500, character_count: 100 },
  ],
};

describe('key form rules', () => {
  it('validates name, permissions and quota', () => {
    expect(validateKeyForm('', 'all', '')).toEqual({ name: 'Please enter a name for the key.' });
    expect(validateKeyForm('x'.repeat(101), 'all', '').name).toMatch(/at most 100/);
    expect(validateKeyForm('ok', [], '').permissions).toBe('Pick at least one permission, or allow all.');
    expect(validateKeyForm('ok', ['text_to_speech'], '-1').limit).toMatch(/whole number/);
    expect(validateKeyForm('ok', ['text_to_speech'], '1.5').limit).toMatch(/whole number/);
    expect(validateKeyForm('ok', ['text_to_speech'], '0')).toEqual({});
  });

  it('edit body holds only what changed; a removed quota is "clear"', () => {
    const before = { name: 'A', permissions: ['voices_read' as const], character_limit: 500 };
    expect(editBody(before, { name: 'A', permissions: ['voices_read'], characterLimit: 500 })).toBeNull();
    expect(editBody(before, { name: 'B', permissions: ['voices_read'], characterLimit: undefined })).toEqual({ name: 'B', character_limit: 'clear' });
    expect(editBody(before, { name: 'A', permissions: 'all', characterLimit: 500 })).toEqual({ permissions: 'all' });
    expect(editBody({ name: 'A', permissions: null, character_limit: null }, { name: 'A', permissions: ['text_to_speech'], characterLimit: 10 })).toEqual({
      permissions: ['text_to_speech'],
      character_limit: 10,
    });
  });
});

describe('ApiKeysPage', () => {
  it('shows permissions, quota and enabled state; toggles through edit-api-key', async () => {
    const { calls } = mockFetch({
      'GET /v1/user/api-keys': () => jsonResponse(keys),
      'POST /v1/user/edit-api-key': () => jsonResponse({}),
    });
    const user = userEvent.setup();
    renderWithProviders(<ApiKeysPage />);
    expect(await screen.findByText('CI')).toBeInTheDocument();
    expect(screen.getByText('All')).toBeInTheDocument();
    expect(screen.getByText('Voices read')).toBeInTheDocument();
    expect(screen.getByText('100 / 500')).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: 'Reader enabled' })).toHaveAttribute('aria-checked', 'false');
    await user.click(screen.getByRole('switch', { name: 'CI enabled' }));
    await waitFor(() => expect(calls.find((c) => c.url.pathname === '/v1/user/edit-api-key')?.body).toEqual({ key_id: 'k1', is_enabled: false }));
  });

  it('creates a key with picked permissions and a quota, and shows it once', async () => {
    const { calls } = mockFetch({
      'GET /v1/user/api-keys': () => jsonResponse(keys),
      'POST /v1/user/create-api-key': () => jsonResponse({ key_id: 'k3', name: 'TTS', xi_api_key: 'sk_once', key_preview: 'sk_…once', created_at_unix: 1 }),
    });
    const user = userEvent.setup();
    renderWithProviders(<ApiKeysPage />);
    await user.click(await screen.findByRole('button', { name: /Create API key/ }));
    await user.type(screen.getByLabelText('Name'), 'TTS');
    await user.click(screen.getByLabelText(/Restrict to/));
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('Pick at least one permission, or allow all.')).toBeInTheDocument();
    await user.click(within(screen.getByRole('group', { name: 'Allowed permissions' })).getByLabelText('Text to speech'));
    await user.type(screen.getByLabelText('Character limit (optional)'), '1000');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByTestId('new-api-key')).toHaveTextContent('sk_once');
    expect(calls.find((c) => c.url.pathname === '/v1/user/create-api-key')?.body).toEqual({
      name: 'TTS',
      permissions: ['text_to_speech'],
      character_limit: 1000,
    });
  });

  it('edits name, permissions and quota', async () => {
    const { calls } = mockFetch({
      'GET /v1/user/api-keys': () => jsonResponse(keys),
      'POST /v1/user/edit-api-key': () => jsonResponse({}),
    });
    const user = userEvent.setup();
    renderWithProviders(<ApiKeysPage />);
    await user.click(await screen.findByRole('button', { name: 'Edit Reader' }));
    const limit = screen.getByLabelText('Character limit (optional)');
    expect(limit).toHaveValue('500');
    await user.clear(limit);
    await user.click(screen.getByLabelText('All permissions'));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(calls.find((c) => c.url.pathname === '/v1/user/edit-api-key')?.body).toEqual({ key_id: 'k2', permissions: 'all', character_limit: 'clear' }),
    );
  });
});
