import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/Toaster';
import { clearToasts } from '@/lib/toast';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { resetSensitiveActions } from '@/lib/sensitive';
import { SecurityPage } from './SecurityPage';
import { SensitiveActionDialog } from '@/components/SensitiveActionDialog';

afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
  resetSensitiveActions();
});

const SESSION = { user_id: 'u', email: 'ada@example.com', email_verified: true, workspace_id: 'w', first_name: 'Ada' };
type Mfa = { totp_enabled: boolean; totp_enabled_at_unix: number | null; backup_codes_remaining: number; mfa_required_for_users: boolean };
const OFF: Mfa = { totp_enabled: false, totp_enabled_at_unix: null, backup_codes_remaining: 0, mfa_required_for_users: false };
const ON: Mfa = { totp_enabled: true, totp_enabled_at_unix: 1_700_000_000, backup_codes_remaining: 8, mfa_required_for_users: false };
const CODES = ['aaaaa-11111', 'bbbbb-22222', 'ccccc-33333', 'ddddd-44444', 'eeeee-55555', 'fffff-66666', 'ggggg-77777', 'hhhhh-88888', 'iiiii-99999', 'jjjjj-00000'];
const SESSIONS = {
  sessions: [
    { session_id: 's1', workspace_id: 'w', user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0', ip_address: '127.0.0.1', created_at_unix: 1_700_000_000, last_seen_unix: 1_700_000_100, expires_at_unix: 1_800_000_000, current: true },
    { session_id: 's2', workspace_id: 'w', user_agent: 'Mozilla/5.0 (Windows NT 10.0) Firefox/121.0', ip_address: '10.0.0.2', created_at_unix: 1_700_000_000, last_seen_unix: 1_700_000_050, expires_at_unix: 1_800_000_000, current: false },
  ],
};

function setup(route = '/app/settings/security', handlers: Parameters<typeof mockFetch>[0] = {}) {
  let mfa: Mfa = { ...OFF };
  const mock = mockFetch({
    'GET /api/auth/session': () => jsonResponse(SESSION),
    'GET /api/auth/mfa': () => jsonResponse(mfa),
    'GET /api/auth/sessions': () => jsonResponse(SESSIONS),
    'POST /api/auth/mfa/totp/enroll': () =>
      jsonResponse({ secret: 'JBSWY3DPEHPK3PXP', otpauth_url: 'otpauth://totp/Timbre:ada@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Timbre' }),
    'POST /api/auth/mfa/totp/confirm': ({ body }) => {
      if ((body as { code: string }).code !== '123456')
        return jsonResponse({ detail: { status: 'invalid_mfa_code', message: 'The code is not valid.' } }, 401);
      mfa = { ...ON, backup_codes_remaining: 10 };
      return jsonResponse({ totp_enabled: true, backup_codes: CODES });
    },
    ...handlers,
  });
  const view = renderWithProviders(
    <>
      <SecurityPage />
      <SensitiveActionDialog />
      <Toaster position="bottom-right" />
    </>,
    { route, path: '/app/settings/security', extraRoutes: [{ path: '/app/sign-in', element: <p>sign-in page</p> }] },
  );
  return { ...mock, ...view, setMfa: (m: Mfa) => (mfa = m) };
}

describe('security page: 2FA', () => {
  it('?dialog=add-2fa opens the setup: QR code and secret, wrong then right code, then backup codes once', async () => {
    const user = userEvent.setup();
    const { calls } = setup('/app/settings/security?dialog=add-2fa');
    const dialog = await screen.findByRole('dialog', { name: 'Set up two-factor authentication' });
    expect(await within(dialog).findByTestId('totp-secret')).toHaveTextContent('JBSW Y3DP EHPK 3PXP');
    await waitFor(() => expect(within(dialog).getByTestId('totp-qr').querySelector('svg')).not.toBeNull());
    const field = within(dialog).getByLabelText('Code from the app');
    await user.type(field, '12');
    await user.click(within(dialog).getByRole('button', { name: 'Turn on 2FA' }));
    expect(await within(dialog).findByText('Please enter the 6-digit code from your authenticator app.')).toBeInTheDocument();
    await user.clear(field);
    await user.type(field, '654321');
    await user.click(within(dialog).getByRole('button', { name: 'Turn on 2FA' }));
    expect(await within(dialog).findByText('The code is not valid.')).toBeInTheDocument();
    await user.clear(field);
    await user.type(field, '123456');
    await user.click(within(dialog).getByRole('button', { name: 'Turn on 2FA' }));
    const codes = await screen.findByRole('list', { name: 'Backup codes' });
    expect(within(codes).getAllByRole('listitem')).toHaveLength(10);
    expect(screen.getByRole('button', { name: /Download/ })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Copy/ })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('list', { name: 'Backup codes' })).not.toBeInTheDocument());
    expect(await screen.findByTestId('mfa-status')).toHaveTextContent(/^On since/);
    expect(calls.filter((c) => c.url.pathname === '/api/auth/mfa/totp/enroll')).toHaveLength(1);
  });

  it('set-up asks for the mailed code first (a stolen session cannot enrol its own app), then shows the secret', async () => {
    const user = userEvent.setup();
    let verified = false;
    const { calls } = setup('/app/settings/security?dialog=add-2fa', {
      'POST /api/auth/mfa/totp/enroll': () =>
        verified
          ? jsonResponse({ secret: 'JBSWY3DPEHPK3PXP', otpauth_url: 'otpauth://totp/Timbre:ada@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Timbre' })
          : jsonResponse({ detail: { status: 'sensitive_action_verification_required', message: 'We emailed you a code.' } }, 403),
      'POST /v1/user/verify-sensitive-action-code': ({ body }) => {
        verified = (body as { code: string }).code === '123456';
        return verified
          ? jsonResponse({ status: 'ok', message: 'Email access verified. Please try the action again.' })
          : jsonResponse({ detail: { status: 'invalid_verification_code', message: 'The verification code is wrong or has expired.' } }, 400);
      },
    });
    const verify = await screen.findByRole('dialog', { name: 'Verify it’s you' });
    await user.type(within(verify).getByLabelText('Verification code'), '123456{Enter}');
    await user.click(await within(verify).findByRole('button', { name: 'Try again' }));
    const dialog = await screen.findByRole('dialog', { name: 'Set up two-factor authentication' });
    expect(await within(dialog).findByTestId('totp-secret')).toHaveTextContent('JBSW Y3DP EHPK 3PXP');
    expect(calls.filter((c) => c.url.pathname === '/api/auth/mfa/totp/enroll')).toHaveLength(2);
  });

  it('Add 2FA button opens the dialog through the query', async () => {
    const user = userEvent.setup();
    setup();
    await user.click(await screen.findByRole('button', { name: 'Add 2FA' }));
    expect(await screen.findByRole('dialog', { name: 'Set up two-factor authentication' })).toBeInTheDocument();
  });

  it('disables 2FA with a backup code', async () => {
    const user = userEvent.setup();
    const { calls, setMfa } = setup('/app/settings/security', {
      'POST /api/auth/mfa/totp/disable': () => {
        setMfa(OFF);
        return jsonResponse({ status: 'ok' });
      },
    });
    setMfa(ON);
    await user.click(await screen.findByRole('button', { name: 'Disable 2FA' }));
    const dialog = await screen.findByRole('dialog', { name: 'Disable two-factor authentication?' });
    await user.click(within(dialog).getByRole('button', { name: 'Use a backup code instead' }));
    await user.type(within(dialog).getByLabelText('Backup code'), 'AAAAA-11111');
    await user.click(within(dialog).getByRole('button', { name: 'Disable 2FA' }));
    expect(await screen.findByText('Two-factor authentication is off.')).toBeInTheDocument();
    expect(calls.find((c) => c.url.pathname === '/api/auth/mfa/totp/disable')!.body).toEqual({ backup_code: 'aaaaa-11111' });
    expect(await screen.findByTestId('mfa-status')).toHaveTextContent('Off');
  });

  it('regenerates backup codes after a code and shows them', async () => {
    const user = userEvent.setup();
    const { calls, setMfa } = setup('/app/settings/security', {
      'POST /v1/user/backup-code': () => jsonResponse({ backup_codes: CODES }),
    });
    setMfa(ON);
    expect(await screen.findByText('8 of 10')).toBeInTheDocument();
    await user.click(await screen.findByRole('button', { name: 'Regenerate backup codes' }));
    const dialog = await screen.findByRole('dialog', { name: 'Regenerate backup codes?' });
    await user.type(within(dialog).getByLabelText('Code from your authenticator app'), '123456');
    await user.click(within(dialog).getByRole('button', { name: 'Regenerate' }));
    expect(await screen.findByRole('dialog', { name: 'Your new backup codes' })).toBeInTheDocument();
    expect(calls.find((c) => c.url.pathname === '/v1/user/backup-code')!.body).toEqual({ code: '123456' });
  });
});

describe('security page: sessions', () => {
  it('marks the current session and revokes another one', async () => {
    const user = userEvent.setup();
    const { calls } = setup('/app/settings/security', {
      'DELETE /api/auth/sessions/s2': () => jsonResponse({ status: 'ok' }),
    });
    const list = await screen.findByRole('list', { name: 'Sessions' });
    const items = within(list).getAllByRole('listitem');
    expect(items[0]).toHaveTextContent('Chrome on Linux');
    expect(within(items[0]!).getByText('This device')).toBeInTheDocument();
    expect(within(items[1]!).queryByText('This device')).not.toBeInTheDocument();
    await user.click(within(items[1]!).getByRole('button', { name: /Sign out Firefox on Windows/ }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByText('The session was signed out.')).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'DELETE' && c.url.pathname === '/api/auth/sessions/s2')).toBe(true);
  });

  it('signs out the other sessions', async () => {
    const user = userEvent.setup();
    const { calls } = setup('/app/settings/security', {
      'DELETE /api/auth/sessions': () => jsonResponse({ status: 'ok', revoked: 1 }),
    });
    await user.click(await screen.findByRole('button', { name: 'Sign out other sessions' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByText('Signed out 1 other session.')).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'DELETE' && c.url.pathname === '/api/auth/sessions')).toBe(true);
  });

  it('signs out everywhere and lands on sign-in', async () => {
    const user = userEvent.setup();
    const { calls } = setup('/app/settings/security', {
      'POST /api/auth/sign-out-everywhere': () => new Response(null, { status: 204 }),
      'POST /api/auth/sign-out': () => new Response(null, { status: 204 }),
    });
    await user.click(await screen.findByRole('button', { name: 'Sign out everywhere' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Sign out everywhere' }));
    expect(await screen.findByText('sign-in page', {}, { timeout: 3000 })).toBeInTheDocument();
    expect(calls.some((c) => c.url.pathname === '/api/auth/sign-out-everywhere')).toBe(true);
  });
});
