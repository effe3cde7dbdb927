import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/Toaster';
import { clearToasts } from '@/lib/toast';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { canManageSharing, grantsOf, type HistoryAccess, type Principals } from '../api';
import { HistoryPanel } from './HistoryPanel';
import { ShareWithPeopleDialog } from './ShareWithPeopleDialog';

afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
});

const members = [
  { user_id: 'u1', email: 'me@example.com', first_name: null, seat_type: 'workspace_member', is_owner: false, is_locked: false },
  { user_id: 'u2', email: 'ann@example.com', first_name: 'Ann', seat_type: 'workspace_member', is_owner: false, is_locked: false },
  { user_id: 'u3', email: 'bob@example.com', first_name: null, seat_type: 'workspace_member', is_owner: false, is_locked: false },
  { user_id: 'u9', email: 'boss@example.com', first_name: null, seat_type: 'workspace_admin', is_owner: true, is_locked: false },
];
const groups = {
  g1: { id: 'g1', name: 'Sales', members: ['ann@example.com'], permissions: [] },
  g2: { id: 'g2', name: 'Audio', members: ['me@example.com'], permissions: [] },
};

const meta = (over: Partial<HistoryAccess> = {}): HistoryAccess => ({
  resource_id: 'h1',
  resource_name: 'Hello there',
  resource_type: 'history' as HistoryAccess['resource_type'],
  creator_user_id: 'u1',
  anonymous_access_level_override: null,
  role_to_group_ids: { admin: ['u1'], editor: ['g1'], commenter: ['u2'], viewer: ['default'] },
  share_options: [
    { id: 'u3', name: 'bob@example.com', type: 'user' },
    { id: 'u9', name: 'boss@example.com', type: 'user' },
    { id: 'g2', name: 'Audio', type: 'group' },
  ],
  ...over,
});

const base = (m: HistoryAccess, me = { user_id: 'u1', email: 'me@example.com' }, role: 'admin' | 'editor' = 'editor') => ({
  'GET /api/auth/session': () => jsonResponse({ ...me, email_verified: true, workspace_id: 'w1' }),
  'GET /api/workspace/access': () => jsonResponse({ role, features: null, duties: [] }),
  'GET /v1/workspace/members': () => jsonResponse(members),
  'GET /v1/workspace/groups': () => jsonResponse(groups),
  'GET /v1/workspace/resources/h1': () => jsonResponse(m),
});

function renderDialog() {
  const onOpenChange = vi.fn();
  const utils = renderWithProviders(
    <>
      <ShareWithPeopleDialog historyItemId="h1" open onOpenChange={onOpenChange} />
      <Toaster position="bottom-right" />
    </>,
  );
  return { ...utils, onOpenChange };
}

const principals: Principals = {
  users: new Map(members.map((m) => [m.user_id, { email: m.email, name: m.first_name || m.email }])),
  groups: new Map(Object.values(groups).map((g) => [g.id, { name: g.name, members: g.members }])),
};

describe('grantsOf', () => {
  it('names each grant, leaves the creator out and lists everyone, groups, then people', () => {
    const grants = grantsOf(meta({ role_to_group_ids: { admin: ['u1', 'u3'], editor: ['g1'], commenter: ['u2', 'gone'], viewer: ['default'] } }), principals);
    expect(grants.map((g) => [g.kind, g.name, g.role])).toEqual([
      ['everyone', 'Everyone in the workspace', 'viewer'],
      ['group', 'Sales', 'editor'],
      ['user', 'ann@example.com', 'commenter'],
      ['user', 'bob@example.com', 'admin'],
      ['user', 'Former member', 'commenter'],
    ]);
    expect(grants.find((g) => g.id === 'u2')?.target).toEqual({ kind: 'user', email: 'ann@example.com' });
    expect(grants.find((g) => g.id === 'default')?.target).toEqual({ kind: 'group', id: 'default' });
    expect(grants.find((g) => g.id === 'gone')?.target).toBeUndefined();
  });

  it('lets the creator, admin grantees (directly, by group or everyone) and workspace admins manage', () => {
    const m = meta({ role_to_group_ids: { admin: ['u1', 'g1'], editor: [], commenter: [], viewer: [] } });
    expect(canManageSharing(m, { userId: 'u1', email: 'me@example.com', isWorkspaceAdmin: false }, principals)).toBe(true);
    expect(canManageSharing(m, { userId: 'u2', email: 'ann@example.com', isWorkspaceAdmin: false }, principals)).toBe(true); // via Sales
    expect(canManageSharing(m, { userId: 'u3', email: 'bob@example.com', isWorkspaceAdmin: false }, principals)).toBe(false);
    expect(canManageSharing(m, { userId: 'u9', email: 'boss@example.com', isWorkspaceAdmin: true }, principals)).toBe(true);
    const everyoneAdmin = meta({ role_to_group_ids: { admin: ['u1', 'default'], editor: [], commenter: [], viewer: [] } });
    expect(canManageSharing(everyoneAdmin, { userId: 'u3', email: 'bob@example.com', isWorkspaceAdmin: false }, principals)).toBe(true);
  });
});

describe('ShareWithPeopleDialog', () => {
  it('lists who has access: the owner, the workspace grant, groups and people with their roles', async () => {
    mockFetch(base(meta()));
    renderDialog();
    const list = await screen.findByRole('list', { name: 'People with access' });
    const rows = within(list).getAllByRole('listitem');
    expect(rows.map((r) => r.textContent)).toEqual([
      expect.stringMatching(/me@example\.com \(you\)Owner/),
      expect.stringContaining('Everyone in the workspace'),
      expect.stringContaining('Sales'),
      expect.stringContaining('ann@example.com'),
    ]);
    expect(within(list).getByLabelText('Role for Everyone in the workspace')).toHaveValue('viewer');
    expect(within(list).getByLabelText('Role for Sales')).toHaveValue('editor');
    expect(within(list).getByLabelText('Role for ann@example.com')).toHaveValue('commenter');
    // The owner's row has no controls.
    expect(within(rows[0]!).queryByRole('combobox')).toBeNull();
    // The options: the everyone grant exists already, so it is not offered again.
    const target = screen.getByLabelText('Add a member or group');
    expect(within(target).getAllByRole('option').map((o) => o.textContent)).toEqual(['Choose…', 'Audio', 'bob@example.com', 'boss@example.com']);
  });

  it('adds a member by email with a role, changes a role and removes grants through the share routes', async () => {
    const { calls } = mockFetch({
      ...base(meta()),
      'POST /v1/workspace/resources/h1/share': () => jsonResponse({ status: 'ok' }),
      'POST /v1/workspace/resources/h1/unshare': () => jsonResponse({ status: 'ok' }),
    });
    const user = userEvent.setup();
    renderDialog();
    const target = await screen.findByLabelText('Add a member or group');
    await user.selectOptions(target, 'bob@example.com');
    await user.selectOptions(screen.getByLabelText('Role'), 'editor');
    expect(screen.getByText(/Editor: Can play, download, give feedback and delete it\./)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Share' }));
    await waitFor(() =>
      expect(calls.filter((c) => c.url.pathname.endsWith('/share')).map((c) => c.body)).toEqual([
        { role: 'editor', resource_type: 'history', user_email: 'bob@example.com' },
      ]),
    );
    expect(await screen.findByText('bob@example.com can now use this as editor.')).toBeInTheDocument();

    await user.selectOptions(screen.getByLabelText('Role for Sales'), 'admin');
    await waitFor(() =>
      expect(calls.filter((c) => c.url.pathname.endsWith('/share')).at(-1)?.body).toEqual({ role: 'admin', resource_type: 'history', group_id: 'g1' }),
    );

    await user.click(screen.getByRole('button', { name: 'Remove Everyone in the workspace' }));
    await waitFor(() =>
      expect(calls.find((c) => c.url.pathname.endsWith('/unshare'))?.body).toEqual({ resource_type: 'history', group_id: 'default' }),
    );
    await user.click(screen.getByRole('button', { name: 'Remove ann@example.com' }));
    await waitFor(() =>
      expect(calls.filter((c) => c.url.pathname.endsWith('/unshare')).at(-1)?.body).toEqual({ resource_type: 'history', user_email: 'ann@example.com' }),
    );
    // Focus stays in the dialog, on the picker, after the row that held it goes.
    expect(screen.getByLabelText('Add a member or group')).toHaveFocus();
    // Every change refetches who has access.
    expect(calls.filter((c) => c.method === 'GET' && c.url.pathname === '/v1/workspace/resources/h1').length).toBeGreaterThanOrEqual(5);
    expect(calls.find((c) => c.url.pathname === '/v1/workspace/resources/h1')?.url.searchParams.get('resource_type')).toBe('history');
  });

  it('shares with a group and with everyone in the workspace', async () => {
    const { calls } = mockFetch({
      ...base(meta({ role_to_group_ids: { admin: ['u1'], editor: [], commenter: [], viewer: [] } })),
      'POST /v1/workspace/resources/h1/share': () => jsonResponse({ status: 'ok' }),
    });
    const user = userEvent.setup();
    renderDialog();
    await user.selectOptions(await screen.findByLabelText('Add a member or group'), 'Audio');
    await user.click(screen.getByRole('button', { name: 'Share' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ role: 'viewer', resource_type: 'history', group_id: 'g2' }));
    await user.selectOptions(screen.getByLabelText('Add a member or group'), 'Everyone in the workspace');
    await user.selectOptions(screen.getByLabelText('Role'), 'commenter');
    await user.click(screen.getByRole('button', { name: 'Share' }));
    await waitFor(() =>
      expect(calls.filter((c) => c.method === 'POST').at(-1)?.body).toEqual({ role: 'commenter', resource_type: 'history', group_id: 'default' }),
    );
  });

  it("shows the server's message inline when a change is refused", async () => {
    mockFetch({
      ...base(meta()),
      'POST /v1/workspace/resources/h1/share': () =>
        jsonResponse(
          { detail: { status: 'forbidden', message: "Only the resource's creator, its admins and workspace admins can change who it is shared with." } },
          403,
        ),
    });
    const user = userEvent.setup();
    renderDialog();
    await user.selectOptions(await screen.findByLabelText('Role for ann@example.com'), 'viewer');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent("Only the resource's creator, its admins and workspace admins can change who it is shared with.");
    expect(within(screen.getByRole('dialog')).getByRole('alert')).toBe(alert);
    // Nothing was chosen to add: the form says so instead of calling the server.
    await user.click(screen.getByRole('button', { name: 'Share' }));
    expect(await screen.findByText('Choose a person or group to share with.')).toBeInTheDocument();
  });

  it('shows the grants read-only to someone who may not share', async () => {
    const { calls } = mockFetch(base(meta(), { user_id: 'u3', email: 'bob@example.com' }));
    renderDialog();
    const list = await screen.findByRole('list', { name: 'People with access' });
    expect(within(list).getByText('me@example.com')).toBeInTheDocument();
    expect(within(list).queryByRole('combobox')).toBeNull();
    expect(within(list).queryByRole('button')).toBeNull();
    expect(within(list).getByText('Commenter')).toBeInTheDocument();
    expect(screen.queryByRole('form', { name: 'Add people' })).toBeNull();
    expect(screen.getByText(/Only its owner, people with admin access to it and workspace admins/)).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('lets a workspace admin manage an item someone else created', async () => {
    mockFetch(base(meta(), { user_id: 'u9', email: 'boss@example.com' }, 'admin'));
    renderDialog();
    expect(await screen.findByLabelText('Role for Sales')).toBeInTheDocument();
    expect(screen.getByRole('form', { name: 'Add people' })).toBeInTheDocument();
  });

  it('opens from the history item actions by keyboard and keeps focus inside', async () => {
    mockFetch({
      ...base(meta()),
      'GET /v1/history': () =>
        jsonResponse({
          history: [
            {
              history_item_id: 'h1',
              text: 'Hello there',
              voice_name: 'Aria',
              voice_id: 'v1',
              model_id: 'eleven_multilingual_v2',
              date_unix: 1_700_000_000,
              character_count_change_from: 0,
              character_count_change_to: 11,
              content_type: 'audio/mpeg',
              state: 'created',
              output_format: 'mp3_44100_128',
            },
          ],
          has_more: false,
          last_history_item_id: 'h1',
        }),
    });
    const user = userEvent.setup();
    renderWithProviders(<HistoryPanel />);
    const button = await screen.findByRole('button', { name: 'Share with people' });
    button.focus();
    await user.keyboard('{Enter}');
    const dialog = await screen.findByRole('dialog', { name: 'Share with people' });
    await within(dialog).findByLabelText('Add a member or group');
    for (let i = 0; i < 12; i++) {
      await user.tab();
      expect(dialog.contains(document.activeElement)).toBe(true);
    }
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });
});
