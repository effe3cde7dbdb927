import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { takePendingAction } from '../pendingAction';
import { EmailActionPage } from './EmailActionPage';

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

const SESSION = { user_id: 'u', email: 'ada@example.com', email_verified: true, workspace_id: 'w', first_name: '' };

function setup(route: string, handlers: Parameters<typeof mockFetch>[0]) {
  const mock = mockFetch(handlers);
  renderWithProviders(<EmailActionPage />, {
    route,
    path: '/app/action',
    extraRoutes: [{ path: '/app/sign-in', element: <p>sign-in page</p> }],
  });
  return mock;
}

describe('sensitiveActionVerificationCode links', () => {
  it('verifies the signed-in session and says to retry', async () => {
    const { calls } = setup('/app/action?sensitiveActionVerificationCode=123456&lang=en', {
      'GET /api/auth/session': () => jsonResponse(SESSION),
      'POST /v1/user/verify-sensitive-action-code': () =>
        jsonResponse({ status: 'ok', message: 'Email access verified. Please try the action again.' }),
    });
    expect(await screen.findByText('Email access verified. Please try the action again.')).toBeInTheDocument();
    expect(calls.find((c) => c.url.pathname === '/v1/user/verify-sensitive-action-code')!.body).toEqual({ code: '123456' });
  });

  it('shows a bad link as invalid', async () => {
    setup('/app/action?sensitiveActionVerificationCode=000000', {
      'GET /api/auth/session': () => jsonResponse(SESSION),
      'POST /v1/user/verify-sensitive-action-code': () =>
        jsonResponse({ detail: { status: 'invalid_verification_code', message: 'The verification code is wrong or has expired.' } }, 400),
    });
    expect(await screen.findByText('This link is invalid, has expired or has already been used.')).toBeInTheDocument();
  });

  it('signed out: asks to sign in and keeps the link for after', async () => {
    const { calls } = setup('/app/action?sensitiveActionVerificationCode=123456', {
      'GET /api/auth/session': () => jsonResponse({ detail: { status: 'unauthorized', message: 'Not signed in.' } }, 401),
    });
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('sign-in page')).toBeInTheDocument();
    expect(takePendingAction()).toBe('/app/action?sensitiveActionVerificationCode=123456');
    expect(calls.some((c) => c.url.pathname === '/v1/user/verify-sensitive-action-code')).toBe(false);
  });
});
