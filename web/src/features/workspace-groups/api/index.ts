import { client, unwrap, type Schemas } from '@/lib/api';

export type WorkspaceGroup = Schemas['WorkspaceGroupResponseModel'];

export const groupsQueryKey = ['workspace', 'groups'] as const;

/** GET /v1/workspace/groups answers an object keyed by group id; sorted by name here. */
export async function listGroups(): Promise<WorkspaceGroup[]> {
  const byId = await unwrap(client.GET('/v1/workspace/groups'));
  return Object.values(byId ?? {}).sort((a, b) => a.name.localeCompare(b.name));
}

export const createGroup = (name: string) => unwrap(client.POST('/api/workspace/groups', { body: { name } }));

export const renameGroup = (id: string, name: string) =>
  unwrap(client.PATCH('/api/workspace/groups/{group_id}', { params: { path: { group_id: id } }, body: { name } }));

export const deleteGroup = (id: string) =>
  unwrap(client.DELETE('/api/workspace/groups/{group_id}', { params: { path: { group_id: id } } }));

export const addGroupMember = (id: string, email: string) =>
  unwrap(client.POST('/v1/workspace/groups/{group_id}/members', { params: { path: { group_id: id } }, body: { email } }));

export const removeGroupMember = (id: string, email: string) =>
  unwrap(client.POST('/v1/workspace/groups/{group_id}/members/remove', { params: { path: { group_id: id } }, body: { email } }));

export const GROUP_NAME_MAX = 100;

export function validateGroupName(name: string, others: string[]): string | undefined {
  const t = name.trim();
  if (!t) return 'Please enter a group name.';
  if (t.length > GROUP_NAME_MAX) return `The name must be at most ${GROUP_NAME_MAX} characters.`;
  if (others.some((o) => o.toLowerCase() === t.toLowerCase())) return 'A group with this name already exists.';
  return undefined;
}

export type GroupPermission = Schemas['WorkspaceGroupPermission'];

export const updateGroupPermissions = (id: string, permissions: string[]) =>
  unwrap(
    client.PATCH('/api/workspace/groups/{group_id}', {
      params: { path: { group_id: id } },
      body: { permissions: permissions as GroupPermission[] },
    }),
  );

/**
 * Group permissions that delegate an admin duty (the server's apikey.GroupDuties); every other
 * group permission names a product feature.
 */
export const GROUP_DUTIES: readonly string[] = [
  'view_fiat_balance',
  'workspace_analytics_full_read',
  'service_accounts_manage',
  'webhooks_manage',
  'group_members_manage',
  'workspace_members_invite',
  'workspace_members_remove',
  'terms_of_service_accept',
  'audit_log_read',
  'conversation_privacy_manage',
  'copy_resources_cross_workspace',
];

export interface PermissionOption {
  value: string;
  label: string;
  hint: string;
}

/** The features Timbre limits today, offered in the editor. */
export const FEATURE_OPTIONS: PermissionOption[] = [
  { value: 'text_to_speech', label: 'Text to speech', hint: 'Generate speech from text.' },
  { value: 'create_user_api_key', label: 'Personal API keys', hint: 'Create and change their own API keys.' },
];

/** The admin duties Timbre delegates today. */
export const DUTY_OPTIONS: PermissionOption[] = [
  { value: 'workspace_members_invite', label: 'Invite members', hint: 'Invite people to the workspace as editors.' },
  { value: 'workspace_members_remove', label: 'Remove members', hint: 'Remove editors from the workspace.' },
  { value: 'group_members_manage', label: 'Manage group members', hint: 'Add and remove members of groups whose permissions they hold.' },
  { value: 'service_accounts_manage', label: 'Service accounts', hint: 'Create service accounts and manage their API keys.' },
  { value: 'webhooks_manage', label: 'Webhooks', hint: 'Create, change and delete workspace webhooks.' },
  { value: 'audit_log_read', label: 'Audit log', hint: 'Read the workspace audit log.' },
];

/** A permission the editor has no label for (set through the API): shown by its name. */
export const permissionName = (p: string) =>
  [...FEATURE_OPTIONS, ...DUTY_OPTIONS].find((o) => o.value === p)?.label ?? p.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

/** Splits a group's permissions into features and duties, as the server does. */
export function splitPermissions(perms: readonly string[] | null | undefined): { features: string[]; duties: string[] } {
  const features: string[] = [];
  const duties: string[] = [];
  for (const p of perms ?? []) (GROUP_DUTIES.includes(p) ? duties : features).push(p);
  return { features, duties };
}

/** The options of one section: the known ones, then any others the group already has (kept, not dropped). */
export function optionsWith(known: PermissionOption[], present: string[]): PermissionOption[] {
  const extra = present.filter((p) => !known.some((o) => o.value === p));
  return [...known, ...extra.map((p) => ({ value: p, label: permissionName(p), hint: 'Set through the API; not used by Timbre yet.' }))];
}
