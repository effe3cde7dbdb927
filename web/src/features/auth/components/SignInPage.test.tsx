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
});


function setup(route: string) {
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
      ],
    },
  );
}

async function signIn(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText('Email'), 'ada@example.com');
  await user.type(screen.getByLabelText('Password'), 'correct horse');
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('sign in', () => {
  it('honours a same-origin /app/ redirect', async () => {
    let signedIn = false;
    mockFetch({
      'GET /api/auth/session': () =>
        signedIn
          ? jsonResponse({ user_id: 'u', email: 'ada@example.com', email_verified: true, workspace_id: 'w' })
          : jsonResponse({ detail: { status: 'unauthorized', message: 'no' } }, 401),
      'POST /api/auth/sign-in': () => {
        signedIn = true;
        return jsonResponse({ user_id: 'u', email: 'ada@example.com', workspace_id: 'w' });
      },
    });
    const user = userEvent.setup();
    setup('/app/sign-in?redirect=%2Fapp%2Fusage');
    await signIn(user);
    expect(await screen.findByText('usage page')).toBeInTheDocument();
  });

  it('ignores an off-site redirect', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    let signedIn = false;
    mockFetch({
      'GET /api/auth/session': () =>
        signedIn
          ? jsonResponse({ user_id: 'u', email: 'a@b.co', email_verified: true, workspace_id: 'w' })
          : jsonResponse({}, 401),
      'POST /api/auth/sign-in': () => {
        signedIn = true;
        return jsonResponse({});
      },
    });
    const user = userEvent.setup();
    setup('/app/sign-in?redirect=https%3A%2F%2Fevil.example%2Fapp%2Fusage');
    await signIn(user);
    expect(await screen.findByText('tts page')).toBeInTheDocument();
  });

  it('unverified email: offers to resend the verification email', async () => {
    const { calls } = mockFetch({
      'GET /api/auth/session': () => jsonResponse({}, 401),
      'POST /api/auth/sign-in': () =>
        jsonResponse({ detail: { status: 'email_not_verified', message: 'Email not verified' } }, 403),
      'POST /api/auth/send-verification-email': () => jsonResponse({ status: 'ok' }),
    });
    const user = userEvent.setup();
    setup('/app/sign-in');
    await signIn(user);
    await user.click(await screen.findByRole('button', { name: 'Resend verification email' }));
    await waitFor(() => expect(calls.some((c) => c.url.pathname === '/api/auth/send-verification-email')).toBe(true));
    expect(calls.find((c) => c.url.pathname === '/api/auth/send-verification-email')!.body).toEqual({
      email: 'ada@example.com',
    });
    expect(await screen.findByText('Verification email sent. Please check your inbox.')).toBeInTheDocument();
  });

  it('wrong password shows the server message', async () => {
    mockFetch({
      'GET /api/auth/session': () => jsonResponse({}, 401),
      'POST /api/auth/sign-in': () =>
        jsonResponse({ detail: { status: 'invalid_credentials', message: 'Invalid email or password.' } }, 401),
    });
    const user = userEvent.setup();
    setup('/app/sign-in');
    await signIn(user);
    expect(await screen.findByText('Invalid email or password.')).toBeInTheDocument();
  });
});

