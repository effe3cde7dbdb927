import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/Toaster';
import { clearToasts, toast } from '@/lib/toast';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { InvitePage } from './InvitePage';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  clearToasts();
});

const PREVIEW = { workspace_name: 'Acme Audio', email: 'mia@example.com', seat_type: 'workspace_member', expires_at_unix: 1_900_000_000 };
const session = (email: string) => ({ user_id: 'u', email, email_verified: true, workspace_id: 'w', first_name: '' });

function setup(handlers: Parameters<typeof mockFetch>[0], route = '/app/invite?code=inv123') {
  const mock = mockFetch({ 'GET /api/workspace/invites/inv123': () => jsonResponse(PREVIEW), ...handlers });
  renderWithProviders(
    <>
      <InvitePage />
      <Toaster position="bottom-right" />
    </>,
    {
      route,
      path: '/app/invite',
      extraRoutes: [
        { path: '/app/speech-synthesis/text-to-speech', element: <p>tts page</p> },
        { path: '/app/sign-in', element: <p>sign-in page</p> },
      ],
    },
  );
  return mock;
}

describe('invitation page', () => {
  it('signed out: shows the invitation, keeps the code under workspaceInviteCode, links to sign in and sign up', async () => {
    setup({ 'GET /api/auth/session': () => jsonResponse({}, 401) });
    expect(await screen.findByRole('heading', { name: 'Join Acme Audio' })).toBeInTheDocument();
    expect(screen.getByTestId('invite-email')).toHaveTextContent('mia@example.com');
    await waitFor(() => expect(localStorage.getItem('workspaceInviteCode')).toBe('inv123'));
    expect(screen.getByRole('link', { name: 'Sign in to accept' })).toHaveAttribute(
      'href',
      `/app/sign-in?redirect=${encodeURIComponent('/app/invite?code=inv123')}`,
    );
    expect(screen.getByRole('link', { name: 'Create an account' })).toHaveAttribute(
      'href',
      '/app/sign-up?email=mia%40example.com',
    );
  });

  it('signed in with the invited email: accepts, clears the code and goes into the app', async () => {
    localStorage.setItem('workspaceInviteCode', 'inv123');
    const { calls } = setup({
      'GET /api/auth/session': () => jsonResponse(session('Mia@Example.com')),
      'POST /v1/workspace/invites/inv123/accept': () =>
        jsonResponse({ status: 'ok', workspace_id: 'w2', seat_type: 'workspace_member', session_switched: true }),
    });
    const success = vi.spyOn(toast, 'success');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Accept invitation' }));
    expect(await screen.findByText('tts page')).toBeInTheDocument();
    expect(success).toHaveBeenCalledWith('You joined Acme Audio.');
    expect(localStorage.getItem('workspaceInviteCode')).toBeNull();
    expect(calls.some((c) => c.method === 'POST' && c.url.pathname === '/v1/workspace/invites/inv123/accept')).toBe(true);
  });

  it('declines', async () => {
    const { calls } = setup({
      'GET /api/auth/session': () => jsonResponse(session('mia@example.com')),
      'POST /v1/workspace/invites/inv123/decline': () => jsonResponse({ status: 'ok' }),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Decline' }));
    expect(await screen.findByRole('heading', { name: 'Invitation declined' })).toBeInTheDocument();
    expect(calls.some((c) => c.url.pathname === '/v1/workspace/invites/inv123/decline')).toBe(true);
  });

  it('signed in as someone else: no accept button, explains and offers sign-out', async () => {
    setup({ 'GET /api/auth/session': () => jsonResponse(session('bob@example.com')) });
    expect(await screen.findByText(/but you are signed in as/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Accept invitation' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign out' })).toBeInTheDocument();
  });

  it('an unknown code says so', async () => {
    setup({
      'GET /api/auth/session': () => jsonResponse({}, 401),
      'GET /api/workspace/invites/inv123': () => jsonResponse({ detail: { status: 'invite_not_found', message: 'x' } }, 404),
    });
    expect(await screen.findByText('This invitation is invalid, has expired or was withdrawn.')).toBeInTheDocument();
    expect(localStorage.getItem('workspaceInviteCode')).toBeNull();
  });
});
