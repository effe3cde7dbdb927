import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { validateGroupName } from '../api';
import { GroupsPage } from './GroupsPage';

afterEach(() => vi.unstubAllGlobals());

const groups = {
  g1: { id: 'g1', name: 'Sales', members: ['ed@example.com'], permissions: [] },
  g2: { id: 'g2', name: 'Audio', members: [], permissions: [] },
};
const members = [
  { user_id: 'u1', email: 'owner@example.com', first_name: null, seat_type: 'workspace_admin', is_owner: true, is_locked: false },
  { user_id: 'u2', email: 'ed@example.com', first_name: null, seat_type: 'workspace_member', is_owner: false, is_locked: false },
];
const base = (isAdmin: boolean) => ({
  'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: isAdmin }),
  'GET /v1/workspace/groups': () => jsonResponse(groups),
  'GET /v1/workspace/members': () => jsonResponse(members),
});

describe('group name rule', () => {
  it('needs a name of at most 100 characters, unique (case-insensitive)', () => {
    expect(validateGroupName(' ', [])).toBe('Please enter a group name.');
    expect(validateGroupName('x'.repeat(101), [])).toMatch(/at most 100/);
    expect(validateGroupName('sales', ['Sales'])).toBe('A group with this name already exists.');
    expect(validateGroupName('Support', ['Sales'])).toBeUndefined();
  });
});

describe('GroupsPage', () => {
  it('creates, renames and deletes groups', async () => {
    const { calls } = mockFetch({
      ...base(true),
      'POST /api/workspace/groups': () => jsonResponse({ id: 'g3', name: 'Support', members: [], permissions: [] }),
      'PATCH /api/workspace/groups/g2': () => jsonResponse({ id: 'g2', name: 'Voice', members: [], permissions: [] }),
      'DELETE /api/workspace/groups/g2': () => jsonResponse({ status: 'ok' }),
    });
    const user = userEvent.setup();
    renderWithProviders(<GroupsPage />);
    await user.click(await screen.findByRole('button', { name: /Create group/ }));
    await user.type(screen.getByLabelText('Group name'), 'sales');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('A group with this name already exists.')).toBeInTheDocument();
    await user.clear(screen.getByLabelText('Group name'));
    await user.type(screen.getByLabelText('Group name'), 'Support');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'Support' }));

    await user.click(screen.getByRole('button', { name: 'Rename Audio' }));
    const input = screen.getByLabelText('Group name');
    expect(input).toHaveValue('Audio');
    await user.clear(input);
    await user.type(input, 'Voice');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ name: 'Voice' }));

    await user.click(screen.getByRole('button', { name: 'Delete group Audio' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete group' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.url.pathname === '/api/workspace/groups/g2')).toBe(true));
  });

  it('adds a member who is not in the group yet, and removes one', async () => {
    const { calls } = mockFetch({
      ...base(true),
      'POST /v1/workspace/groups/g1/members': () => jsonResponse({ status: 'ok' }),
      'POST /v1/workspace/groups/g1/members/remove': () => jsonResponse({ status: 'ok' }),
    });
    const user = userEvent.setup();
    renderWithProviders(<GroupsPage />);
    const select = await screen.findByLabelText('Member to add to Sales');
    await waitFor(() => expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual(['Choose a member…', 'owner@example.com']));
    await user.selectOptions(select, 'owner@example.com');
    await user.click(within(select.closest('form')!).getByRole('button', { name: /Add to group/ }));
    await waitFor(() => expect(calls.find((c) => c.url.pathname === '/v1/workspace/groups/g1/members')?.body).toEqual({ email: 'owner@example.com' }));
    await user.click(screen.getByRole('button', { name: 'Remove ed@example.com from Sales' }));
    await waitFor(() => expect(calls.find((c) => c.url.pathname === '/v1/workspace/groups/g1/members/remove')?.body).toEqual({ email: 'ed@example.com' }));
  });

  it('editors see groups and their members without controls', async () => {
    mockFetch(base(false));
    renderWithProviders(<GroupsPage />);
    expect(await screen.findByText('ed@example.com')).toBeInTheDocument();
    await screen.findByText(/Only workspace admins can change them/);
    expect(screen.queryByRole('button')).toBeNull();
  });
});
