import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/Toaster';
import { clearToasts } from '@/lib/toast';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { emailUpdateError } from '../api';
import { ApiError } from '@/lib/api';
import { AccountSettingsPage } from './AccountSettingsPage';

afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
});

const SESSION = { user_id: 'u', email: 'ada@example.com', email_verified: true, workspace_id: 'w', first_name: 'Ada' };

function setup(handlers: Parameters<typeof mockFetch>[0] = {}) {
  const mock = mockFetch({ 'GET /api/auth/session': () => jsonResponse(SESSION), ...handlers });
  renderWithProviders(
    <>
      <AccountSettingsPage />
      <Toaster position="bottom-right" />
    </>,
    { route: '/app/settings', path: '/app/settings', extraRoutes: [{ path: '/app/sign-in', element: <p>sign-in page</p> }] },
  );
  return mock;
}

describe('account settings', () => {
  it('shows the profile', async () => {
    setup();
    expect(await screen.findByTestId('profile-email')).toHaveTextContent('ada@example.com');
    expect(screen.getByText('Ada')).toBeInTheDocument();
  });

  it('edits the name', async () => {
    const user = userEvent.setup();
    const { calls } = setup({ 'PATCH /api/account': ({ body }) => jsonResponse(body) });
    await user.click(await screen.findByRole('button', { name: 'Edit name' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit name' });
    const field = within(dialog).getByLabelText('Name');
    expect(field).toHaveValue('Ada');
    await user.clear(field);
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByText('Please enter your name.')).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'PATCH')).toBe(false);
    await user.type(field, 'Ada Lovelace');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.find((c) => c.method === 'PATCH')!.body).toEqual({ first_name: 'Ada Lovelace' });
  });

  it('changes the password with the current one, then signs in again', async () => {
    const user = userEvent.setup();
    const { calls } = setup({
      'POST /api/auth/sign-out': () => jsonResponse({ status: 'ok' }),
      'POST /api/auth/change-password': ({ body }) => {
        const b = body as { current_password: string; new_password: string };
        if (b.current_password !== 'old passphrase')
          return jsonResponse({ detail: { status: 'wrong_current_password', message: 'Your current password is not right.' } }, 401);
        if (b.new_password.length < 8)
          return jsonResponse({ detail: [{ loc: ['body', 'new_password'], msg: 'Password must be at least 8 characters.', type: 'value_error' }] }, 422);
        return jsonResponse({ status: 'ok', signed_out: true });
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Change password' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change password' });
    await user.type(within(dialog).getByLabelText('Current password'), 'wrong one');
    await user.type(within(dialog).getByLabelText('New password'), 'short');
    await user.click(within(dialog).getByRole('button', { name: 'Change password' }));
    expect(await within(dialog).findByText('Your current password is not right.')).toBeInTheDocument();
    await user.clear(within(dialog).getByLabelText('Current password'));
    await user.type(within(dialog).getByLabelText('Current password'), 'old passphrase');
    await user.click(within(dialog).getByRole('button', { name: 'Change password' }));
    expect(await within(dialog).findByText('Password must be at least 8 characters.')).toBeInTheDocument();
    await user.type(within(dialog).getByLabelText('New password'), ' but longer now');
    await user.click(within(dialog).getByRole('button', { name: 'Change password' }));
    expect(await screen.findByText('sign-in page')).toBeInTheDocument();
    expect(calls.filter((c) => c.url.pathname === '/api/auth/change-password').at(-1)!.body).toEqual({
      current_password: 'old passphrase',
      new_password: 'short but longer now',
    });
  }, 20_000);

  it('changes the email with the mailed code (spec §8 success message)', async () => {
    const user = userEvent.setup();
    const { calls } = setup({
      'POST /v1/user/send-email-change-verification': () => jsonResponse({ status: 'ok' }),
      'PUT /v1/user/email': ({ url }) =>
        url.searchParams.get('verification_code') === '482913'
          ? jsonResponse({ status: 'ok', email: 'ada@new.example', message: 'Email updated! Please refresh this page to reauthenticate.' })
          : jsonResponse(
              { detail: { status: 'invalid_verification_code', message: 'Unable to update email, the code is wrong or has expired.' } },
              400,
            ),
    });
    await user.click(await screen.findByRole('button', { name: 'Change email' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change email address' });
    await user.type(within(dialog).getByLabelText('New email'), 'ada@example.com');
    await user.click(within(dialog).getByRole('button', { name: 'Send code' }));
    expect(within(dialog).getByText('That is already your email address.')).toBeInTheDocument();
    await user.clear(within(dialog).getByLabelText('New email'));
    await user.type(within(dialog).getByLabelText('New email'), 'ada@new.example');
    await user.click(within(dialog).getByRole('button', { name: 'Send code' }));
    const code = await within(dialog).findByLabelText('Verification code');
    expect(calls.find((c) => c.url.pathname === '/v1/user/send-email-change-verification')!.body).toEqual({ email: 'ada@new.example' });
    await user.type(code, '111111');
    await user.click(within(dialog).getByRole('button', { name: 'Change email' }));
    expect(await within(dialog).findByText('Unable to update email, the code is wrong or has expired.')).toBeInTheDocument();
    await user.clear(code);
    await user.type(code, '482913');
    await user.click(within(dialog).getByRole('button', { name: 'Change email' }));
    expect(await screen.findByText('Email updated! Please refresh this page to reauthenticate.')).toBeInTheDocument();
  });

  it('prefixes failures with "Unable to update email, " and maps 429', () => {
    expect(emailUpdateError(new ApiError(400, 'The code is wrong.'))).toBe('Unable to update email, the code is wrong.');
    expect(emailUpdateError(new ApiError(400, 'Unable to update email, x'))).toBe('Unable to update email, x');
    expect(emailUpdateError(new ApiError(429, 'slow down'))).toBe('Too many attempts, please try again in a few minutes.');
    expect(emailUpdateError(new ApiError(500, 'boom'))).toBe(
      'Unable to update email, something went wrong, please try again later.',
    );
  });

  it('opts out of product updates', async () => {
    const user = userEvent.setup();
    setup({
      'POST /v1/user/opt-out-of-updates': () =>
        jsonResponse({ status: 'ok', message: 'We have opted you out of receiving product updates.' }),
    });
    await user.click(await screen.findByRole('button', { name: 'Opt out of product updates' }));
    expect(await screen.findByText('We have opted you out of receiving product updates.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Opted out' })).toBeDisabled();
  });

  it('deletes the account only with a proof (password or mailed code), after a clear warning', async () => {
    const user = userEvent.setup();
    const { calls } = setup({
      'DELETE /v1/user/delete': ({ body }) => {
        const password = (body as { password?: string }).password;
        if (password === undefined)
          return jsonResponse(
            { detail: { status: 'sensitive_action_verification_required', message: 'We emailed you a code.' } },
            403,
          );
        return password === 'right'
          ? jsonResponse({ status: 'ok', workspaces_deleted: 1, workspaces_left: 0 })
          : jsonResponse({ detail: { status: 'invalid_credentials', message: 'Wrong password.' } }, 401);
      },
      'POST /api/auth/sign-out': () => new Response(null, { status: 204 }),
    });
    await user.click(await screen.findByRole('button', { name: 'Delete account' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete your account?' });
    expect(within(dialog).getByText('This cannot be undone.')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Delete account' }));
    // Without a password the server asks for the mailed code (the code dialog is app-wide).
    expect(await within(dialog).findByText('We emailed you a code.')).toBeInTheDocument();
    expect(calls.filter((c) => c.url.pathname === '/v1/user/delete')).toHaveLength(1);
    await user.type(within(dialog).getByLabelText('Password'), 'wrong');
    await user.click(within(dialog).getByRole('button', { name: 'Delete account' }));
    expect(await within(dialog).findByText('Wrong password.')).toBeInTheDocument();
    await user.clear(within(dialog).getByLabelText('Password'));
    await user.type(within(dialog).getByLabelText('Password'), 'right');
    await user.click(within(dialog).getByRole('button', { name: 'Delete account' }));
    expect(await screen.findByText('Your account was deleted.')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByText('sign-in page')).toBeInTheDocument(), { timeout: 3000 });
  });
});
