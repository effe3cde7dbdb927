import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { SignUpPage } from './SignUpPage';

afterEach(() => vi.unstubAllGlobals());

describe('sign-up with an invitation', () => {
  it('sends the stored invite code, prefills the invited email and forgets the code once joined', async () => {
    localStorage.setItem('workspaceInviteCode', 'inv123');
    const { calls } = mockFetch({
      'POST /api/auth/sign-up': () => jsonResponse({ user_id: 'u', email: 'mia@example.com' }, 201),
    });
    const user = userEvent.setup();
    renderWithProviders(<SignUpPage />, { route: '/app/sign-up?email=mia%40example.com', path: '/app/sign-up' });
    expect(screen.getByText('You are signing up to accept a workspace invitation.')).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveValue('mia@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    await waitFor(() => expect(calls.some((c) => c.url.pathname === '/api/auth/sign-up')).toBe(true));
    expect(calls.find((c) => c.url.pathname === '/api/auth/sign-up')!.body).toEqual({
      email: 'mia@example.com',
      password: 'correct horse',
      terms_accepted: true,
      invite_code: 'inv123',
    });
    expect(await screen.findByRole('heading', { name: 'Check your email' })).toBeInTheDocument();
    expect(localStorage.getItem('workspaceInviteCode')).toBeNull();
  });
});
