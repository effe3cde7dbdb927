import { useQuery } from '@tanstack/react-query';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearToasts } from '@/lib/toast';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { WorkspaceSwitcher } from './WorkspaceSwitcher';

afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
});

function Probe() {
  const q = useQuery({ queryKey: ['probe'], queryFn: () => fetch('/v1/user').then((r) => r.json()) });
  return <p data-testid="probe">{q.data?.workspace_id}</p>;
}

describe('workspace switcher', () => {
  it('lists the workspaces, switches and refetches everything', async () => {
    let current = 'w1';
    const list = () => ({
      current_workspace_id: current,
      workspaces: [
        { workspace_id: 'w1', name: 'Personal', tier: 'free', role: 'admin', seat_type: 'workspace_admin', is_owner: true, is_locked: false, is_current: current === 'w1' },
        { workspace_id: 'w2', name: 'Acme Audio', tier: 'pro', role: 'editor', seat_type: 'workspace_member', is_owner: false, is_locked: false, is_current: current === 'w2' },
        { workspace_id: 'w3', name: 'Locked Co', tier: 'pro', role: 'editor', seat_type: 'workspace_member', is_owner: false, is_locked: true, is_current: false },
      ],
    });
    const { calls } = mockFetch({
      'GET /api/workspaces': () => jsonResponse(list()),
      'GET /v1/user': () => jsonResponse({ workspace_id: current }),
      'POST /api/workspaces/switch': ({ body }) => {
        current = (body as { workspace_id: string }).workspace_id;
        return jsonResponse({ status: 'ok', workspace_id: current });
      },
    });
    const user = userEvent.setup();
    renderWithProviders(
      <>
        <WorkspaceSwitcher />
        <Probe />
      </>,
      { route: '/app/usage' },
    );
    const trigger = await screen.findByRole('button', { name: 'Workspace: Personal. Switch workspace' });
    expect(await screen.findByTestId('probe')).toHaveTextContent('w1');
    await user.click(trigger);
    expect(await screen.findByRole('menuitem', { name: /Locked Co/ })).toHaveAttribute('data-disabled');
    await user.click(screen.getByRole('menuitem', { name: /Acme Audio/ }));
    await waitFor(() => expect(screen.getByTestId('probe')).toHaveTextContent('w2'));
    expect(await screen.findByRole('button', { name: 'Workspace: Acme Audio. Switch workspace' })).toBeInTheDocument();
    expect(calls.find((c) => c.url.pathname === '/api/workspaces/switch')!.body).toEqual({ workspace_id: 'w2' });
  });
});
