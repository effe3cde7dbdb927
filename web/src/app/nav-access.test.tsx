import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PlayerProvider, PlayerStore } from '@/lib/player';
import { jsonResponse, mockFetch, testQueryClient } from '@/test/utils';
import { routes } from './router';

afterEach(() => vi.unstubAllGlobals());

function setup(access: { role: 'admin' | 'editor'; features: string[] | null; duties: string[] }) {
  const mock = mockFetch({
    'GET /api/auth/session': () => jsonResponse({ user_id: 'u1', email: 'ada@example.com', email_verified: true, workspace_id: 'w1' }),
    'GET /v1/user/subscription': () => jsonResponse({ tier: 'free', character_count: 0, character_limit: 10000 }),
    'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: access.role === 'admin' }),
    'GET /api/workspace/access': () => jsonResponse(access),
    'GET /v1/workspace/members': () => jsonResponse([]),
    'GET /v1/workspace/groups': () => jsonResponse({}),
  });
  const router = createMemoryRouter(routes, { initialEntries: ['/app/workspace/groups'] });
  render(
    <QueryClientProvider client={testQueryClient()}>
      <PlayerProvider store={new PlayerStore()}>
        <RouterProvider router={router} />
      </PlayerProvider>
    </QueryClientProvider>,
  );
  return mock;
}

const DELEGATED = ['Service accounts', 'Webhooks', 'Audit log'];

async function navLinks(calls: ReturnType<typeof mockFetch>['calls']) {
  const nav = (await screen.findAllByRole('navigation', { name: 'Main' }))[0]!;
  await within(nav).findByRole('link', { name: 'Members' });
  await waitFor(() => expect(calls.some((c) => c.url.pathname === '/api/workspace/access')).toBe(true));
  // Let the access answer reach the sidebar.
  await new Promise((r) => setTimeout(r, 50));
  return (name: string) => within(nav).queryByRole('link', { name }) !== null;
}

describe('workspace navigation follows delegated duties', () => {
  it('admins see every workspace screen', async () => {
    const { calls } = setup({ role: 'admin', features: null, duties: [] });
    const has = await navLinks(calls);
    await waitFor(() => expect(DELEGATED.filter(has)).toEqual(DELEGATED));
  });

  it('editors without duties see none of the admin screens', async () => {
    const { calls } = setup({ role: 'editor', features: null, duties: [] });
    const has = await navLinks(calls);
    expect(DELEGATED.filter(has)).toEqual([]);
    expect(has('Members')).toBe(true);
    expect(has('Groups')).toBe(true);
  });

  it.each([
    [['audit_log_read'], ['Audit log']],
    [['webhooks_manage'], ['Webhooks']],
    [['service_accounts_manage'], ['Service accounts']],
    [['service_accounts_manage', 'webhooks_manage', 'audit_log_read'], DELEGATED],
    [['workspace_members_invite', 'group_members_manage'], []],
  ])('an editor holding %j sees %j', async (duties, expected) => {
    const { calls } = setup({ role: 'editor', features: null, duties });
    const has = await navLinks(calls);
    await waitFor(() => expect(DELEGATED.filter(has)).toEqual(expected));
    expect(has('Members')).toBe(true);
  });
});
