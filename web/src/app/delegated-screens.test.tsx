import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuditLogPage } from '@/features/audit-log';
import { ServiceAccountsPage } from '@/features/service-accounts';
import { MembersPage, WorkspaceInvitesPage } from '@/features/workspace-members';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';

afterEach(() => vi.unstubAllGlobals());

const members = [
  { user_id: 'u1', email: 'owner@example.com', first_name: null, seat_type: 'workspace_admin', is_owner: true, is_locked: false },
  { user_id: 'u2', email: 'me@example.com', first_name: null, seat_type: 'workspace_member', is_owner: false, is_locked: false },
  { user_id: 'u3', email: 'ed@example.com', first_name: null, seat_type: 'workspace_member', is_owner: false, is_locked: false },
];

const editor = (duties: string[]) => ({
  'GET /api/auth/session': () => jsonResponse({ user_id: 'u2', email: 'me@example.com', email_verified: true, workspace_id: 'w1' }),
  'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: false }),
  'GET /api/workspace/access': () => jsonResponse({ role: 'editor', features: null, duties }),
  'GET /v1/workspace/members': () => jsonResponse(members),
  'GET /api/workspace/invites': () => jsonResponse({ invites: [] }),
  'GET /v1/user/subscription': () => jsonResponse({ tier: 'free', character_count: 0, character_limit: 1000, max_seats: 5 }),
});

describe('screens delegated to editors', () => {
  it('the audit log opens for an editor holding audit_log_read', async () => {
    const { calls } = mockFetch({
      ...editor(['audit_log_read']),
      'GET /v1/workspace/audit-logs': () => jsonResponse({ entries: [], has_more: false, next_cursor: null }),
    });
    renderWithProviders(<AuditLogPage />);
    await waitFor(() => expect(calls.some((c) => c.url.pathname === '/v1/workspace/audit-logs')).toBe(true));
    expect(screen.queryByText(/Only workspace admins can manage/)).toBeNull();
  });

  it('the audit log stays closed to an editor without it', async () => {
    const { calls } = mockFetch(editor(['webhooks_manage']));
    renderWithProviders(<AuditLogPage />);
    expect(await screen.findByText(/Only workspace admins can manage the audit log/)).toBeInTheDocument();
    expect(calls.some((c) => c.url.pathname === '/v1/workspace/audit-logs')).toBe(false);
  });

  it('service accounts open for an editor holding service_accounts_manage', async () => {
    mockFetch({ ...editor(['service_accounts_manage']), 'GET /v1/service-accounts': () => jsonResponse({ 'service-accounts': [] }) });
    renderWithProviders(<ServiceAccountsPage />);
    expect(await screen.findByText('No service accounts yet.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Create service account/ })).toBeInTheDocument();
  });

  it('an editor holding workspace_members_invite invites editors only and sees pending invitations', async () => {
    const { calls } = mockFetch({ ...editor(['workspace_members_invite']), 'POST /v1/workspace/invites/add': () => jsonResponse({ status: 'ok' }) });
    const user = userEvent.setup();
    renderWithProviders(<WorkspaceInvitesPage />);
    expect(await screen.findByText('No pending invitations.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: /Invite members/ }));
    const dialog = await screen.findByRole('dialog');
    expect(within(within(dialog).getByLabelText('Role')).getAllByRole('option').map((o) => o.textContent)).toEqual(['Editor']);
    await user.type(within(dialog).getByLabelText(/Email/), 'new@example.com');
    await user.click(within(dialog).getByRole('button', { name: 'Send invite' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ email: 'new@example.com', seat_type: 'workspace_member' }));
  });

  it('an editor holding workspace_members_remove may remove other editors, not admins or themselves, and not change roles', async () => {
    const { calls } = mockFetch({ ...editor(['workspace_members_remove']), 'DELETE /api/workspace/members/u3': () => jsonResponse({ status: 'ok' }) });
    const user = userEvent.setup();
    renderWithProviders(<MembersPage />);
    await user.click(await screen.findByRole('button', { name: 'Remove ed@example.com' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Remove member' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.url.pathname === '/api/workspace/members/u3')).toBe(true));
    expect(screen.queryByRole('button', { name: 'Remove owner@example.com' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Remove me@example.com' })).toBeNull();
    expect(screen.queryByRole('combobox')).toBeNull();
    expect(screen.queryByRole('button', { name: /Invite members/ })).toBeNull();
  });

  it('an editor without duties keeps the read-only members page', async () => {
    mockFetch(editor([]));
    renderWithProviders(<MembersPage />);
    expect(await screen.findByText('ed@example.com')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByText(/Only workspace admins can invite people or change roles/)).toBeInTheDocument());
    expect(screen.queryByRole('button', { name: /Remove/ })).toBeNull();
  });
});
