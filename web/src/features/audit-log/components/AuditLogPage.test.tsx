import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { actorLabel, auditQuery, EMPTY_FILTERS, validateFilters } from '../api';
import { AuditLogPage } from './AuditLogPage';

afterEach(() => vi.unstubAllGlobals());

const entry = (id: string, over: object = {}) => ({
  id,
  time: 1_700_000_000_000,
  activity_id: 1,
  activity_name: 'Role Change',
  class_name: 'User Access Management',
  status_id: 1,
  actor: { user: { uid: 'u1', email_addr: 'owner@example.com', type: 'User' } },
  device: { ip: '203.0.113.5' },
  message: `Role Change of ${id} by owner@example.com`,
  unmapped: { class: 'member', activity: 'role_change', details: { from: 'workspace_member', to: 'workspace_admin' } },
  ...over,
});

describe('audit filters', () => {
  it('maps filters to the query; refuses a reversed range', () => {
    expect(auditQuery(EMPTY_FILTERS)).toEqual({ limit: 50 });
    const q = auditQuery({ actor: 'u1', className: 'member', activity: ' role_change ', from: '2026-01-01T00:00', to: '' }, 'c9');
    expect(q).toMatchObject({ limit: 50, cursor: 'c9', actor_uid: 'u1', class_name: 'member', activity_name: 'role_change' });
    expect(q.time_from_unix_ms).toBe(new Date('2026-01-01T00:00').getTime());
    expect(validateFilters({ ...EMPTY_FILTERS, from: '2026-02-01T00:00', to: '2026-01-01T00:00' })).toMatch(/before its end/);
  });
});

describe('AuditLogPage', () => {
  it('filters and pages with the cursor (older, then newer)', async () => {
    const { calls } = mockFetch({
      'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: true }),
      'GET /v1/workspace/members': () => jsonResponse([{ user_id: 'u1', email: 'owner@example.com', first_name: null, seat_type: 'workspace_admin', is_owner: true, is_locked: false }]),
      'GET /v1/workspace/audit-logs': ({ url }) =>
        url.searchParams.get('cursor') === 'c1'
          ? jsonResponse({ entries: [entry('e3', { status_id: 2, activity_name: 'Sign In Failed' })], has_more: false, next_cursor: null })
          : jsonResponse({ entries: [entry('e1'), entry('e2')], has_more: true, next_cursor: 'c1' }),
    });
    const user = userEvent.setup();
    renderWithProviders(<AuditLogPage />);
    await waitFor(() => expect(screen.getAllByTestId('audit-row')).toHaveLength(2));
    expect(screen.getAllByText('owner@example.com').length).toBeGreaterThan(0);
    expect(screen.getAllByText('203.0.113.5')).toHaveLength(2);
    expect(screen.getByRole('button', { name: /Newer/ })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: /Older/ }));
    expect(await screen.findByText('Failed')).toBeInTheDocument();
    expect(screen.getByText('Page 2')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Older/ })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: /Newer/ }));
    await waitFor(() => expect(screen.getAllByTestId('audit-row')).toHaveLength(2));

    await user.selectOptions(await screen.findByLabelText('Actor'), 'u1');
    await user.selectOptions(screen.getByLabelText('Class'), 'member');
    await user.type(screen.getByLabelText('Activity'), 'role_change');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    await waitFor(() => {
      const last = calls.filter((c) => c.url.pathname === '/v1/workspace/audit-logs').at(-1)!;
      expect(Object.fromEntries(last.url.searchParams)).toEqual({ limit: '50', actor_uid: 'u1', class_name: 'member', activity_name: 'role_change' });
    });
  });

  it('editors see a notice and nothing is fetched', async () => {
    const { calls } = mockFetch({ 'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: false }) });
    renderWithProviders(<AuditLogPage />);
    expect(await screen.findByText(/Only workspace admins can manage the audit log/)).toBeInTheDocument();
    expect(calls.some((c) => c.url.pathname === '/v1/workspace/audit-logs')).toBe(false);
  });
});

describe('audit actor', () => {
  it("names a member by name and email, not by user id, when the event carries no email", () => {
    const entry = { id: 'e1', actor: { user: { uid: 'u-42', type: 'User' } } } as unknown as Parameters<typeof actorLabel>[0];
    expect(actorLabel(entry, new Map([['u-42', 'Ada (ada@example.com)']]))).toBe('Ada (ada@example.com)');
    expect(actorLabel(entry)).toBe('u-42');
  });
});
