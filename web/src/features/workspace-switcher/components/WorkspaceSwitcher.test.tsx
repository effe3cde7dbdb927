import { useQuery } from '@tanstack/react-query';
import { screen, waitFor, within } from '@testing-library/react';
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

  it('renames the current workspace and creates a new one', async () => {
    let current = 'w1';
    const names: Record<string, string> = { w1: 'ada@example.com\'s workspace' };
    const list = () => ({
      current_workspace_id: current,
      workspaces: Object.entries(names).map(([id, name]) => ({
        workspace_id: id, name, tier: 'free', role: 'admin', seat_type: 'workspace_admin', is_owner: true, is_locked: false, is_current: id === current,
      })),
    });
    const { calls } = mockFetch({
      'GET /api/workspaces': () => jsonResponse(list()),
      'PATCH /api/workspace': ({ body }) => {
        names[current] = (body as { name: string }).name;
        return jsonResponse({ workspace_id: current, name: names[current] });
      },
      'POST /api/workspaces': ({ body }) => {
        current = 'w2';
        names.w2 = (body as { name: string }).name;
        return jsonResponse({ workspace_id: 'w2', name: names.w2, tier: 'free', role: 'admin', is_current: true }, 201);
      },
    });
    const user = userEvent.setup();
    renderWithProviders(<WorkspaceSwitcher />, { route: '/app/usage' });
    await user.click(await screen.findByRole('button', { name: /Workspace: ada@example.com's workspace/ }));
    await user.click(await screen.findByRole('menuitem', { name: 'Rename workspace' }));
    const rename = await screen.findByRole('dialog', { name: 'Rename workspace' });
    await user.clear(within(rename).getByLabelText('Workspace name'));
    await user.click(within(rename).getByRole('button', { name: 'Save' }));
    expect(within(rename).getByText('Please give the workspace a name.')).toBeInTheDocument();
    await user.type(within(rename).getByLabelText('Workspace name'), 'Ada Studio');
    await user.click(within(rename).getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('button', { name: 'Workspace: Ada Studio. Switch workspace' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Workspace: Ada Studio. Switch workspace' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Create workspace' }));
    const create = await screen.findByRole('dialog', { name: 'Create a workspace' });
    await user.type(within(create).getByLabelText('Workspace name'), 'Podcast team');
    await user.click(within(create).getByRole('button', { name: 'Create workspace' }));
    expect(await screen.findByRole('button', { name: 'Workspace: Podcast team. Switch workspace' })).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST' && c.url.pathname === '/api/workspaces')!.body).toEqual({ name: 'Podcast team' });
  }, 20_000);
});
