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
