import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { parseEmails, seatsUsed } from '../api';
import { MembersPage, WorkspaceInvitesPage } from './MembersPage';

afterEach(() => vi.unstubAllGlobals());

const members = [
  { user_id: 'u1', email: 'owner@example.com', first_name: 'Olive', seat_type: 'workspace_admin', is_owner: true, is_locked: false },
  { user_id: 'u2', email: 'ed@example.com', first_name: null, seat_type: 'workspace_member', is_owner: false, is_locked: false },
  { user_id: 'u3', email: 'locked@example.com', first_name: null, seat_type: 'workspace_member', is_owner: false, is_locked: true },
];
const invites = {
  invites: [{ email: 'new@example.com', seat_type: 'workspace_member', group_ids: [], invited_by_user_id: 'u1', created_at_unix: 1_700_000_000, expires_at_unix: 1_700_600_000 }],
};

function handlers(isAdmin: boolean, extra: Record<string, Parameters<typeof mockFetch>[0][string]> = {}) {
  return {
    'GET /api/auth/session': () => jsonResponse({ user_id: isAdmin ? 'u1' : 'u2', email: 'x@example.com', email_verified: true, workspace_id: 'w1' }),
    'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: isAdmin }),
    'GET /v1/workspace/members': () => jsonResponse(members),
    'GET /api/workspace/invites': () => jsonResponse(invites),
    'GET /v1/user/subscription': () => jsonResponse({ tier: 'scale_2024_08_10', character_count: 0, character_limit: 1000, max_seats: 5 }),
    ...extra,
  };
}

describe('bulk invite parsing and seats', () => {
  it('splits on commas, semicolons, spaces and new lines, lower-cases and de-duplicates', () => {
    expect(parseEmails('a@x.io, B@x.io;\nb@x.io  c@x.io')).toEqual({ valid: ['a@x.io', 'b@x.io', 'c@x.io'], invalid: [] });
    expect(parseEmails('a@x.io, nope').invalid).toEqual(['nope']);
  });
  it('counts pending invites as used seats', () => {
    expect(seatsUsed(3, 1)).toBe(4);
  });
});

describe('MembersPage (admin)', () => {
  it('lists members with role and status, and seats used / total from the plan', async () => {
    mockFetch(handlers(true));
    renderWithProviders(<MembersPage />);
    expect(await screen.findByText('Olive')).toBeInTheDocument();
    const locked = screen.getByTestId('member-locked@example.com');
    expect(within(locked).getByText('Locked')).toBeInTheDocument();
    expect(await screen.findByTestId('seats')).toHaveTextContent('4 / 5 seats used (including 1 pending invite)');
    // The owner has no role select, lock or remove.
    const owner = screen.getByTestId('member-owner@example.com');
    expect(within(owner).queryByRole('combobox')).toBeNull();
    expect(within(owner).queryByRole('button')).toBeNull();
    expect(within(owner).getByText('Owner')).toBeInTheDocument();
  });

  it('changes a role, locks and removes (after confirming)', async () => {
    const { calls } = mockFetch(
      handlers(true, {
        'POST /v1/workspace/members': () => jsonResponse({ status: 'ok' }),
        'DELETE /api/workspace/members/u2': () => jsonResponse({ status: 'ok' }),
      }),
    );
    const user = userEvent.setup();
    renderWithProviders(<MembersPage />);
    await user.selectOptions(await screen.findByLabelText('Role of ed@example.com'), 'workspace_admin');
    await waitFor(() =>
      expect(calls.find((c) => c.method === 'POST' && c.url.pathname === '/v1/workspace/members')?.body).toEqual({
        email: 'ed@example.com',
        workspace_seat_type: 'workspace_admin',
      }),
    );
    await user.click(within(screen.getByTestId('member-ed@example.com')).getByRole('button', { name: 'Lock' }));
    await waitFor(() => expect(calls.filter((c) => c.url.pathname === '/v1/workspace/members' && c.method === 'POST')[1]?.body).toEqual({ email: 'ed@example.com', is_locked: true }));
    await user.click(within(screen.getByTestId('member-locked@example.com')).getByRole('button', { name: 'Unlock' }));

    await user.click(screen.getByRole('button', { name: 'Remove ed@example.com' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(await screen.findByRole('button', { name: 'Remove member' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.url.pathname === '/api/workspace/members/u2')).toBe(true));
  });

  it('invites one person with a role, and several at once', async () => {
    const { calls } = mockFetch(
      handlers(true, {
        'POST /v1/workspace/invites/add': () => jsonResponse({ status: 'ok' }),
        'POST /v1/workspace/invites/add-bulk': () => jsonResponse({ status: 'ok' }),
      }),
    );
    const user = userEvent.setup();
    renderWithProviders(<MembersPage />);
    await user.click(await screen.findByRole('button', { name: /Invite members/ }));
    await user.type(screen.getByLabelText('Email'), 'not-an-email');
    await user.click(screen.getByRole('button', { name: 'Send invite' }));
    expect(await screen.findByText('Please enter a valid email address.')).toBeInTheDocument();
    await user.clear(screen.getByLabelText('Email'));
    await user.type(screen.getByLabelText('Email'), 'Grace@Example.com');
    await user.selectOptions(screen.getByLabelText('Role'), 'workspace_admin');
    await user.click(screen.getByRole('button', { name: 'Send invite' }));
    await waitFor(() =>
      expect(calls.find((c) => c.url.pathname === '/v1/workspace/invites/add')?.body).toEqual({ email: 'grace@example.com', seat_type: 'workspace_admin' }),
    );

    await user.click(await screen.findByRole('button', { name: /Invite members/ }));
    await user.click(screen.getByRole('tab', { name: 'Several people' }));
    await user.type(screen.getByLabelText('Emails'), 'a@x.io, b@x.io');
    await user.click(screen.getByRole('button', { name: 'Send invites' }));
    await waitFor(() =>
      expect(calls.find((c) => c.url.pathname === '/v1/workspace/invites/add-bulk')?.body).toEqual({ emails: ['a@x.io', 'b@x.io'], seat_type: 'workspace_member' }),
    );
  });

  it('withdraws a pending invite after confirming', async () => {
    const { calls } = mockFetch(handlers(true, { 'DELETE /v1/workspace/invites': () => jsonResponse({ status: 'ok' }) }));
    const user = userEvent.setup();
    renderWithProviders(<WorkspaceInvitesPage />);
    expect(await screen.findByText('new@example.com')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Withdraw' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Withdraw' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'DELETE')?.body).toEqual({ email: 'new@example.com' }));
  });
});

describe('MembersPage (editor)', () => {
  it('shows the list read-only: no invite, role, lock or remove controls; invites not fetched', async () => {
    const { calls } = mockFetch(handlers(false));
    renderWithProviders(<MembersPage />);
    expect(await screen.findByText('Olive')).toBeInTheDocument();
    await waitFor(() => expect(calls.some((c) => c.url.pathname === '/v1/workspace/is-admin')).toBe(true));
    expect(screen.queryByRole('button', { name: /Invite members/ })).toBeNull();
    expect(screen.queryByRole('combobox')).toBeNull();
    expect(screen.queryByRole('button', { name: /Remove|Lock|Unlock/ })).toBeNull();
    expect(screen.getAllByText('Editor').length).toBeGreaterThan(0);
    expect(calls.some((c) => c.url.pathname === '/api/workspace/invites')).toBe(false);
    expect(screen.queryByTestId('seats')).toBeNull();
  });
});
