import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { EmailActionPage } from './EmailActionPage';
import { ResetPasswordPage } from './ResetPasswordPage';

afterEach(() => vi.unstubAllGlobals());

describe('reset password code check', () => {
  it('shows the form when the code is valid', async () => {
    mockFetch({ 'POST /api/auth/check-reset-code': () => jsonResponse({ email: 'ada@example.com' }) });
    renderWithProviders(<ResetPasswordPage />, { route: '/r?oobCode=abc' });
    expect(await screen.findByLabelText('New password')).toBeInTheDocument();
    expect(screen.getByText('ada@example.com')).toBeInTheDocument();
  });

  it('too many attempts', async () => {
    mockFetch({
      'POST /api/auth/check-reset-code': () =>
        jsonResponse({ detail: { status: 'too_many_attempts', message: 'slow down' } }, 429),
    });
    renderWithProviders(<ResetPasswordPage />, { route: '/r?oobCode=abc' });
    expect(await screen.findByText('Too many attempts, please try again in a few minutes.')).toBeInTheDocument();
  });

  it('invalid code', async () => {
    mockFetch({
      'POST /api/auth/check-reset-code': () =>
        jsonResponse({ detail: { status: 'invalid_action_code', message: 'bad' } }, 400),
    });
    renderWithProviders(<ResetPasswordPage />, { route: '/r?oobCode=abc' });
    expect(await screen.findByText(/This password reset link is invalid/)).toBeInTheDocument();
  });
});

describe('email action handler', () => {
  it('verifyEmail shows the verified dialog', async () => {
    const { calls } = mockFetch({ 'POST /api/auth/verify-email': () => jsonResponse({ email: 'ada@example.com' }) });
    renderWithProviders(<EmailActionPage />, { route: '/app/action?mode=verifyEmail&oobCode=C0DE&lang=en' });
    expect(await screen.findByText('Email verified successfully! Please sign back in to continue.')).toBeInTheDocument();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body).toEqual({ code: 'C0DE' });
  });

  it('resetPassword redirects to the reset-password route with the code', async () => {
    mockFetch({ 'POST /api/auth/check-reset-code': () => jsonResponse({ email: 'ada@example.com' }) });
    renderWithProviders(<EmailActionPage />, {
      route: '/app/action?mode=resetPassword&oobCode=XYZ',
      path: '/app/action',
      extraRoutes: [{ path: '/app/sign-in/reset-password', element: <ResetPasswordPage /> }],
    });
    expect(await screen.findByLabelText('New password')).toBeInTheDocument();
  });

  it('unknown modes show an error', () => {
    renderWithProviders(<EmailActionPage />, { route: '/app/action?mode=somethingElse' });
    expect(screen.getByRole('alert')).toBeInTheDocument();
  });
});
