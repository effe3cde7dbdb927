import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/Toaster';
import { clearToasts } from '@/lib/toast';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { SignInPage } from './SignInPage';

afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
  sessionStorage.clear();
});

const SESSION = { user_id: 'u', email: 'ada@example.com', email_verified: true, workspace_id: 'w', first_name: '' };

function setup(route = '/app/sign-in') {
  return renderWithProviders(
    <>
      <SignInPage />
      <Toaster position="top-center" />
    </>,
    {
      route,
      path: '/app/sign-in',
      extraRoutes: [
        { path: '/app/usage', element: <p>usage page</p> },
        { path: '/app/speech-synthesis/text-to-speech', element: <p>tts page</p> },
        { path: '/app/settings/security', element: <p>security page</p> },
        { path: '/app/invite', element: <p>invite page</p> },
        { path: '/app/action', element: <p>action page</p> },
        { path: '/app/sso', element: <p>sso page</p> },
      ],
    },
  );
}

async function fillPassword(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText('Email'), 'ada@example.com');
  await user.type(screen.getByLabelText('Password'), 'correct horse');
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

function mfaServer(verify: (body: unknown) => Response) {
  let signedIn = false;
  return mockFetch({
    'GET /api/auth/session': () => (signedIn ? jsonResponse(SESSION) : jsonResponse({}, 401)),
    'POST /api/auth/sign-in': () => jsonResponse({ mfa_required: true, mfa_token: 'tok-1', redirect_to: '/app/usage' }),
    'POST /api/auth/mfa/verify': ({ body }) => {
      const res = verify(body);
      if (res.ok) signedIn = true;
      return res;
    },
  });
}

describe('sign-in MFA step', () => {
  it('asks for the code, posts it with the challenge token and honours redirect_to', async () => {
    const { calls } = mfaServer(() =>
      jsonResponse({ user_id: 'u', email: 'ada@example.com', workspace_id: 'w', redirect_to: '/app/usage' }),
    );
    const user = userEvent.setup();
    setup('/app/sign-in?redirect=%2Fapp%2Fusage');
    await fillPassword(user);
    expect(calls.find((c) => c.url.pathname === '/api/auth/sign-in')!.body).toMatchObject({ redirect: '/app/usage' });
    const field = await screen.findByLabelText('Authentication code');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('Please enter the 6-digit code from your authenticator app.')).toBeInTheDocument();
    await user.type(field, '123 456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('usage page')).toBeInTheDocument();
    expect(calls.find((c) => c.url.pathname === '/api/auth/mfa/verify')!.body).toEqual({ mfa_token: 'tok-1', code: '123456' });
  });

  it('accepts a backup code instead', async () => {
    const { calls } = mfaServer(() =>
      jsonResponse({ user_id: 'u', email: 'ada@example.com', workspace_id: 'w', redirect_to: '/app/speech-synthesis/text-to-speech' }),
    );
    const user = userEvent.setup();
    setup();
    await fillPassword(user);
    await user.click(await screen.findByRole('button', { name: 'Use a backup code' }));
    await user.type(screen.getByLabelText('Backup code'), ' K7M2P-X9Q4R ');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('tts page')).toBeInTheDocument();
    expect(calls.find((c) => c.url.pathname === '/api/auth/mfa/verify')!.body).toEqual({
      mfa_token: 'tok-1',
      backup_code: 'k7m2p-x9q4r',
    });
  });

  it('shows the too-many-attempts message on 429 and the server message on a wrong code', async () => {
    let n = 0;
    mfaServer(() =>
      ++n === 1
        ? jsonResponse({ detail: { status: 'invalid_mfa_code', message: 'The code is not valid.' } }, 401)
        : jsonResponse({ detail: { status: 'too_many_attempts', message: 'x' } }, 429),
    );
    const user = userEvent.setup();
    setup();
    await fillPassword(user);
    const field = await screen.findByLabelText('Authentication code');
    await user.type(field, '111111');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('The code is not valid.')).toBeInTheDocument();
    await user.clear(field);
    await user.type(field, '222222');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('Too many attempts, please try again in a few minutes.')).toBeInTheDocument();
  });

  it('an expired challenge goes back to the password step', async () => {
    mfaServer(() => jsonResponse({ detail: { status: 'invalid_mfa_token', message: 'gone' } }, 401));
    const user = userEvent.setup();
    setup();
    await fillPassword(user);
    await user.type(await screen.findByLabelText('Authentication code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(
      await screen.findByText('This sign-in took too long. Please enter your email and password again.'),
    ).toBeInTheDocument();
    expect(screen.getByLabelText('Password')).toHaveValue('');
  });

  it('mfa_enrollment_required sends the user to the 2FA setup', async () => {
    let signedIn = false;
    mockFetch({
      'GET /api/auth/session': () => (signedIn ? jsonResponse({ ...SESSION, mfa_enrollment_required: true }) : jsonResponse({}, 401)),
      'POST /api/auth/sign-in': () => {
        signedIn = true;
        return jsonResponse({ ...SESSION, mfa_required: false, mfa_enrollment_required: true, redirect_to: '/app/usage' });
      },
    });
    const user = userEvent.setup();
    setup();
    await fillPassword(user);
    expect(await screen.findByText('security page')).toBeInTheDocument();
  });

  it('too many password attempts shows the §8 message', async () => {
    mockFetch({
      'GET /api/auth/session': () => jsonResponse({}, 401),
      'POST /api/auth/sign-in': () => jsonResponse({ detail: { status: 'too_many_attempts', message: 'x' } }, 429),
    });
    const user = userEvent.setup();
    setup();
    await fillPassword(user);
    expect(await screen.findByText('Too many attempts, please try again in a few minutes.')).toBeInTheDocument();
  });

  it('a stored invite code leads back to the invitation', async () => {
    let signedIn = false;
    mockFetch({
      'GET /api/auth/session': () => (signedIn ? jsonResponse(SESSION) : jsonResponse({}, 401)),
      'POST /api/auth/sign-in': () => {
        signedIn = true;
        return jsonResponse({ ...SESSION, redirect_to: '/app/speech-synthesis/text-to-speech' });
      },
    });
    localStorage.setItem('workspaceInviteCode', 'abc123');
    const user = userEvent.setup();
    setup();
    await fillPassword(user);
    expect(await screen.findByText('invite page')).toBeInTheDocument();
  });

  it('a pending support-access action is resumed after sign-in', async () => {
    let signedIn = false;
    mockFetch({
      'GET /api/auth/session': () => (signedIn ? jsonResponse(SESSION) : jsonResponse({}, 401)),
      'POST /api/auth/sign-in': () => {
        signedIn = true;
        return jsonResponse({ ...SESSION, redirect_to: '/app/speech-synthesis/text-to-speech' });
      },
    });
    sessionStorage.setItem('timbre.pendingAction', '/app/action?mode=verifySignInRequest&verificationCode=c1');
    const user = userEvent.setup();
    setup();
    await fillPassword(user);
    expect(await screen.findByText('action page')).toBeInTheDocument();
    expect(sessionStorage.getItem('timbre.pendingAction')).toBeNull();
  });

  it('links to SSO sign-in', async () => {
    mockFetch({ 'GET /api/auth/session': () => jsonResponse({}, 401) });
    setup('/app/sign-in?redirect=%2Fapp%2Fusage');
    const link = await screen.findByRole('link', { name: 'Sign in with SSO' });
    expect(link).toHaveAttribute('href', '/app/sso?redirect=%2Fapp%2Fusage');
    await waitFor(() => expect(link).toBeVisible());
  });
});
