import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { FEATURE_OPTIONS, optionsWith, splitPermissions } from '../api';
import { GroupsPage } from './GroupsPage';

afterEach(() => vi.unstubAllGlobals());

const groups = {
  g1: { id: 'g1', name: 'Sales', members: ['ed@example.com'], permissions: ['text_to_speech', 'webhooks_manage', 'dubbing'] },
  g2: { id: 'g2', name: 'Audio', members: [], permissions: [] },
};
const members = [
  { user_id: 'u1', email: 'owner@example.com', first_name: null, seat_type: 'workspace_admin', is_owner: true, is_locked: false },
  { user_id: 'u2', email: 'ed@example.com', first_name: null, seat_type: 'workspace_member', is_owner: false, is_locked: false },
];
const base = (isAdmin: boolean, duties: string[] = []) => ({
  'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: isAdmin }),
  'GET /api/workspace/access': () => jsonResponse({ role: isAdmin ? 'admin' : 'editor', features: null, duties }),
  'GET /v1/workspace/groups': () => jsonResponse(groups),
  'GET /v1/workspace/members': () => jsonResponse(members),
});

describe('group permissions', () => {
  it('splits permissions into features and duties as the server does, keeping unknown ones', () => {
    expect(splitPermissions(['text_to_speech', 'webhooks_manage', 'dubbing', 'audit_log_read'])).toEqual({
      features: ['text_to_speech', 'dubbing'],
      duties: ['webhooks_manage', 'audit_log_read'],
    });
    expect(optionsWith(FEATURE_OPTIONS, ['dubbing']).map((o) => o.label)).toEqual(['Text to speech', 'Personal API keys', 'Dubbing']);
  });

  it('shows what each group limits and delegates', async () => {
    mockFetch(base(true));
    renderWithProviders(<GroupsPage />);
    const summary = await screen.findByLabelText('Permissions of Sales');
    expect(summary).toHaveTextContent('FeaturesText to speech, DubbingAdmin dutiesWebhooks');
    expect(screen.getByLabelText('Permissions of Audio')).toHaveTextContent('FeaturesNot limitedAdmin dutiesNone');
  });

  it('edits permissions in two sections and saves them with PATCH', async () => {
    const { calls } = mockFetch({
      ...base(true),
      'PATCH /api/workspace/groups/g1': () => jsonResponse({ ...groups.g1 }),
    });
    const user = userEvent.setup();
    renderWithProviders(<GroupsPage />);
    await user.click(await screen.findByRole('button', { name: 'Edit permissions of Sales' }));
    const dialog = await screen.findByRole('dialog', { name: 'Permissions of Sales' });
    const features = within(dialog).getByRole('group', { name: 'Features members may use' });
    const duties = within(dialog).getByRole('group', { name: 'Admin duties delegated to members' });
    expect(features).toHaveAccessibleDescription(/If any is ticked, members are limited to the ticked features/);
    expect(duties).toHaveAccessibleDescription(/Members may do these admin tasks without being workspace admins/);
    expect(within(features).getAllByRole('checkbox').map((c) => c.closest('label')!.querySelector('span span')!.textContent)).toEqual([
      'Text to speech',
      'Personal API keys',
      'Dubbing',
    ]);
    expect(within(duties).getAllByRole('checkbox')).toHaveLength(6);
    expect(within(features).getByRole('checkbox', { name: /Text to speech/ })).toBeChecked();
    expect(within(features).getByRole('checkbox', { name: /Dubbing/ })).toBeChecked();
    expect(within(duties).getByRole('checkbox', { name: /Webhooks/ })).toBeChecked();
    expect(within(duties).getByRole('checkbox', { name: /Audit log/ })).not.toBeChecked();

    await user.click(within(features).getByRole('checkbox', { name: /Personal API keys/ }));
    await user.click(within(features).getByRole('checkbox', { name: /Text to speech/ }));
    await user.click(within(duties).getByRole('checkbox', { name: /Audit log/ }));
    await user.click(within(duties).getByRole('checkbox', { name: /Invite members/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Save permissions' }));
    await waitFor(() =>
      expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({
        permissions: ['create_user_api_key', 'dubbing', 'workspace_members_invite', 'webhooks_manage', 'audit_log_read'],
      }),
    );
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it("shows the server's refusal inside the dialog", async () => {
    mockFetch({
      ...base(true),
      'PATCH /api/workspace/groups/g2': () =>
        jsonResponse({ detail: [{ loc: ['body', 'permissions', 0], msg: "Input should be one of the API's group permissions.", type: 'enum' }] }, 422),
    });
    const user = userEvent.setup();
    renderWithProviders(<GroupsPage />);
    await user.click(await screen.findByRole('button', { name: 'Edit permissions of Audio' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('checkbox', { name: /Text to speech/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Save permissions' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent("Input should be one of the API's group permissions.");
  });

  it('delegates with group_members_manage add and remove members, but do not edit groups', async () => {
    const { calls } = mockFetch({
      ...base(false, ['group_members_manage']),
      'POST /v1/workspace/groups/g1/members/remove': () => jsonResponse({ status: 'ok' }),
    });
    const user = userEvent.setup();
    renderWithProviders(<GroupsPage />);
    await user.click(await screen.findByRole('button', { name: 'Remove ed@example.com from Sales' }));
    await waitFor(() => expect(calls.some((c) => c.url.pathname === '/v1/workspace/groups/g1/members/remove')).toBe(true));
    expect(await screen.findByLabelText('Member to add to Audio')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Create group/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /Edit permissions of/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /Rename/ })).toBeNull();
    expect(screen.getByText(/You may add and remove members of groups whose permissions you hold/)).toBeInTheDocument();
  });
});
