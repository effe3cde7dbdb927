import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PlayerProvider, PlayerStore } from '@/lib/player';
import { jsonResponse, mockFetch, testQueryClient } from '@/test/utils';
import { routes } from './router';

afterEach(() => vi.unstubAllGlobals());

function renderApp(path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  render(
    <QueryClientProvider client={testQueryClient()}>
      <PlayerProvider store={new PlayerStore()}>
        <RouterProvider router={router} />
      </PlayerProvider>
    </QueryClientProvider>,
  );
  return router;
}

const base = (isAdmin: boolean) => ({
  'GET /api/auth/session': () => jsonResponse({ user_id: 'u1', email: 'ada@example.com', email_verified: true, workspace_id: 'w1' }),
  'GET /v1/user/subscription': () => jsonResponse({ tier: 'free', character_count: 0, character_limit: 10000 }),
  'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: isAdmin }),
  'GET /v1/workspace/members': () => jsonResponse([]),
  'GET /v1/workspace/webhooks': () => jsonResponse({ webhooks: [] }),
});

describe('workspace routes', () => {
  it.each([
    ['/app/workspace/members', 'Members'],
    ['/app/settings/workspace-invites', 'Workspace invitations'],
    ['/app/workspace/groups', 'Groups'],
    ['/app/workspace/service-accounts', 'Service accounts'],
    ['/app/workspace/webhooks', 'Webhooks'],
    ['/app/developers/webhooks', 'Webhooks'],
    ['/app/settings/webhooks', 'Webhooks'],
    ['/app/workspace/security', 'Workspace security'],
    ['/app/workspace/audit-log', 'Audit log'],
  ])('%s shows %s', async (path, heading) => {
    mockFetch(base(true));
    renderApp(path);
    expect(await screen.findByRole('heading', { level: 1, name: heading })).toBeInTheDocument();
  });

  it('the sidebar lists the admin-only screens for admins only', async () => {
    mockFetch(base(true));
    renderApp('/app/workspace/members');
    const nav = (await screen.findAllByRole('navigation', { name: 'Main' }))[0]!;
    expect(await within(nav).findByRole('link', { name: 'Audit log' })).toBeInTheDocument();
    expect(within(nav).getByRole('link', { name: 'Members' })).toHaveAttribute('aria-current', 'page');
  });

  it('editors do not see admin-only screens in the sidebar', async () => {
    mockFetch(base(false));
    renderApp('/app/workspace/members');
    const nav = (await screen.findAllByRole('navigation', { name: 'Main' }))[0]!;
    expect(await within(nav).findByRole('link', { name: 'Members' })).toBeInTheDocument();
    expect(within(nav).getByRole('link', { name: 'Workspace security' })).toBeInTheDocument();
    expect(within(nav).queryByRole('link', { name: 'Audit log' })).toBeNull();
    expect(within(nav).queryByRole('link', { name: 'Webhooks' })).toBeNull();
    expect(within(nav).queryByRole('link', { name: 'Service accounts' })).toBeNull();
  });
});
