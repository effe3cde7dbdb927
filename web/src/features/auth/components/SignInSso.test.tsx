import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { browser } from '@/lib/sso';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { SignInPage } from './SignInPage';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const SSO_MESSAGE = 'Your organization requires single sign-on for this email address: sign in with SSO instead of a password.';

function setup(route: string) {
  return renderWithProviders(<SignInPage />, {
    route,
    path: '/app/sign-in',
    extraRoutes: [{ path: '/app/usage', element: <p>usage page</p> }],
  });
}

describe('sign in when the organisation requires SSO', () => {
  it('shows the server message and starts SSO for the typed email, keeping the redirect', async () => {
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => undefined);
    const { calls } = mockFetch({
      'GET /api/auth/session': () => jsonResponse({}, 401),
      'POST /api/auth/sign-in': () => jsonResponse({ detail: { status: 'sso_required', message: SSO_MESSAGE } }, 403),
    });
    const user = userEvent.setup();
    setup('/app/sign-in?redirect=%2Fapp%2Fusage');
    await user.type(screen.getByLabelText('Email'), 'Ada@Acme.test');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByText(SSO_MESSAGE)).toBeInTheDocument();
    const sso = screen.getByRole('button', { name: 'Continue with SSO' });
    // Focused, so Enter continues (keyboard users land on it).
    await waitFor(() => expect(sso).toHaveFocus());
    await user.keyboard('{Enter}');
    expect(assign).toHaveBeenCalledWith('/api/sso/start?email=Ada%40Acme.test&redirect=%2Fapp%2Fusage');
    expect(calls.filter((c) => c.url.pathname === '/api/auth/sign-in')).toHaveLength(1);
    expect(screen.queryByText('usage page')).not.toBeInTheDocument();
  });

  it('clears the SSO offer when the form is sent again', async () => {
    let required = true;
    mockFetch({
      'GET /api/auth/session': () => jsonResponse({}, 401),
      'POST /api/auth/sign-in': () =>
        required
          ? jsonResponse({ detail: { status: 'sso_required', message: SSO_MESSAGE } }, 403)
          : jsonResponse({ detail: { status: 'invalid_credentials', message: 'Wrong email or password.' } }, 401),
    });
    const user = userEvent.setup();
    setup('/app/sign-in');
    await user.type(screen.getByLabelText('Email'), 'ada@acme.test');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByTestId('sso-required')).toBeInTheDocument();
    required = false;
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Wrong email or password.')).toBeInTheDocument();
    expect(screen.queryByTestId('sso-required')).not.toBeInTheDocument();
  });
});
