import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/Toaster';
import { clearToasts, toast } from '@/lib/toast';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { EmailActionPage } from './EmailActionPage';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  clearToasts();
  sessionStorage.clear();
});

const SESSION = { user_id: 'u', email: 'ada@example.com', email_verified: true, workspace_id: 'w', first_name: '' };

function setup(route: string, handlers: Parameters<typeof mockFetch>[0]) {
  const mock = mockFetch(handlers);
  renderWithProviders(
    <>
      <EmailActionPage />
      <Toaster position="bottom-right" />
    </>,
    {
      route,
      path: '/app/action',
      extraRoutes: [
        { path: '/', element: <p>home page</p> },
        { path: '/app/sign-in', element: <p>sign-in page</p> },
        { path: '/app/speech-synthesis/text-to-speech', element: <p>tts page</p> },
      ],
    },
  );
  return mock;
}

describe('email actions through POST /api/auth/action', () => {
  it('optOutOfUpdates: the opted-out dialog', async () => {
    const { calls } = setup('/app/action?mode=optOutOfUpdates&oobCode=c1', {
      'POST /api/auth/action': () => jsonResponse({ status: 'ok', mode: 'optOutOfUpdates', message: 'x' }),
    });
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('We have opted you out of receiving product updates.')).toBeInTheDocument();
    expect(calls[0]!.body).toEqual({ mode: 'optOutOfUpdates', code: 'c1' });
    await userEvent.setup().click(within(dialog).getByRole('button', { name: 'OK' }));
    expect(await screen.findByText('home page')).toBeInTheDocument();
  });

  it('optOutOfUpdates failure: the error dialog', async () => {
    setup('/app/action?mode=optOutOfUpdates&oobCode=bad', {
      'POST /api/auth/action': () => jsonResponse({ detail: { status: 'invalid_action_code', message: 'x' } }, 400),
    });
    expect(
      await screen.findByText(
        'An error occurred while trying to opt you out from receiving product updates, please try again.',
      ),
    ).toBeInTheDocument();
  });

  it('recoverEmail: restores the address and signs out', async () => {
    setup('/app/action?mode=recoverEmail&oobCode=r1', {
      'POST /api/auth/action': () =>
        jsonResponse({ status: 'ok', mode: 'recoverEmail', email: 'old@example.com', message: 'Your email address has been restored.' }),
    });
    expect(await screen.findByRole('heading', { name: 'Email address restored' })).toBeInTheDocument();
    expect(screen.getByText('old@example.com')).toBeInTheDocument();
  });

  it('recoverEmail with a used code', async () => {
    setup('/app/action?mode=recoverEmail&oobCode=r1', {
      'POST /api/auth/action': () => jsonResponse({ detail: { status: 'invalid_action_code', message: 'x' } }, 400),
    });
    expect(await screen.findByText('This link is invalid, has expired or has already been used.')).toBeInTheDocument();
  });

  it('verifySignInRequest: the support access dialog, then the thank-you toast and /', async () => {
    const { calls } = setup('/app/action?mode=verifySignInRequest&verificationCode=s1', {
      'GET /api/auth/session': () => jsonResponse(SESSION),
      'POST /api/auth/action': () =>
        jsonResponse({ status: 'ok', mode: 'verifySignInRequest', redirect_to: '/', expires_at_unix: 1 }),
    });
    const success = vi.spyOn(toast, 'success');
    const dialog = await screen.findByRole('dialog', { name: 'Grant Support Access to Your Account' });
    expect(within(dialog).getByText('Do you want to grant our support team temporary access to your account?')).toBeInTheDocument();
    await userEvent.setup().click(within(dialog).getByRole('button', { name: 'Grant Access' }));
    expect(await screen.findByText('home page')).toBeInTheDocument();
    expect(success).toHaveBeenCalledWith('Thank you for granting us access to your account!');
    expect(calls.find((c) => c.url.pathname === '/api/auth/action')!.body).toEqual({ mode: 'verifySignInRequest', code: 's1' });
  });

  it('verifySignInRequest signed out: asks to sign in and keeps the action for after', async () => {
    setup('/app/action?mode=verifySignInRequest&verificationCode=s1', {
      'GET /api/auth/session': () => jsonResponse({}, 401),
    });
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('sign-in page')).toBeInTheDocument();
    expect(sessionStorage.getItem('timbre.pendingAction')).toBe('/app/action?mode=verifySignInRequest&verificationCode=s1');
  });

  it('verifySignInRequest failure shows the HTTP error toast', async () => {
    setup('/app/action?mode=verifySignInRequest&verificationCode=s1', {
      'GET /api/auth/session': () => jsonResponse(SESSION),
      'POST /api/auth/action': () => jsonResponse({ detail: { status: 'invalid_action_code', message: 'The code is wrong.' } }, 400),
    });
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Grant Access' }));
    await waitFor(() => expect(screen.getByText('The code is wrong.')).toBeInTheDocument());
  });
});
