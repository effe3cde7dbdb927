import { client, unwrap, type Schemas } from '@/lib/api';

/**
 * Sharing a history item with people of the workspace (per-resource grants), through the
 * workspace resource routes. The public link (ShareDialog) is separate.
 */

// Timbre extends the API's WorkspaceResourceType with 'history'; the document lists it only where Timbre answers (the metadata route).
const HISTORY = 'history' as Schemas['WorkspaceResourceType'];

export type ResourceRole = 'admin' | 'editor' | 'commenter' | 'viewer';
export type HistoryAccess = Schemas['TimbreResourceMetadataResponseModel'];

/** Weakest first, as the role select lists them. */
export const RESOURCE_ROLES: ResourceRole[] = ['viewer', 'commenter', 'editor', 'admin'];

export const ROLE_LABELS: Record<ResourceRole, string> = {
  viewer: 'Viewer',
  commenter: 'Commenter',
  editor: 'Editor',
  admin: 'Admin',
};

export const ROLE_HINTS: Record<ResourceRole, string> = {
  viewer: 'Can play and download it.',
  commenter: 'Can play, download and give feedback.',
  editor: 'Can play, download, give feedback and delete it.',
  admin: 'Can do everything, including sharing it.',
};

/** The group id that stands for everyone in the workspace. */
export const EVERYONE = 'default';
export const EVERYONE_LABEL = 'Everyone in the workspace';

/** Whom a grant names: a member (by email) or a group ('default' = the whole workspace). */
export type ShareTarget = { kind: 'user'; email: string } | { kind: 'group'; id: string };

export const historyAccessQueryKey = (id: string) => ['history', 'access', id] as const;
export const sharePrincipalsQueryKey = ['workspace', 'share-principals'] as const;

export const getHistoryAccess = (id: string) =>
  unwrap(
    client.GET('/v1/workspace/resources/{resource_id}', {
      params: { path: { resource_id: id }, query: { resource_type: HISTORY } },
    }),
  );

const targetBody = (t: ShareTarget) => (t.kind === 'user' ? { user_email: t.email } : { group_id: t.id });

export const shareHistoryItem = (id: string, target: ShareTarget, role: ResourceRole) =>
  unwrap(
    client.POST('/v1/workspace/resources/{resource_id}/share', {
      params: { path: { resource_id: id } },
      body: { role, resource_type: HISTORY, ...targetBody(target) },
    }),
  );

export const unshareHistoryItem = (id: string, target: ShareTarget) =>
  unwrap(
    client.POST('/v1/workspace/resources/{resource_id}/unshare', {
      params: { path: { resource_id: id } },
      body: { resource_type: HISTORY, ...targetBody(target) },
    }),
  );

export interface Principals {
  /** Members by user id. */
  users: Map<string, { email: string; name: string }>;
  /** Groups by id, with their members' emails. */
  groups: Map<string, { name: string; members: string[] }>;
}

/** Members and groups of the workspace, to name the grants (role_to_group_ids holds bare ids). */
export async function getSharePrincipals(): Promise<Principals> {
  const [members, groups] = await Promise.all([
    unwrap(client.GET('/v1/workspace/members')),
    unwrap(client.GET('/v1/workspace/groups')),
  ]);
  return {
    users: new Map((members ?? []).map((m) => [m.user_id, { email: m.email, name: m.first_name || m.email }])),
    groups: new Map(Object.values(groups ?? {}).map((g) => [g.id, { name: g.name, members: g.members }])),
  };
}

export interface Grant {
  /** Stable key: kind and id. */
  key: string;
  kind: 'everyone' | 'group' | 'user';
  id: string;
  name: string;
  role: ResourceRole;
  /** How to name it in share/unshare; undefined when the id is no longer known (e.g. a member who left). */
  target?: ShareTarget;
}

const kindOrder = { everyone: 0, group: 1, user: 2 } as const;

/** The grants of a resource, named: everyone first, then groups, then people; the creator is left out (always admin). */
export function grantsOf(meta: HistoryAccess, principals: Principals | undefined): Grant[] {
  const grants: Grant[] = [];
  const seen = new Set<string>();
  // Strongest role first, so a principal listed twice keeps its strongest grant.
  for (const role of [...RESOURCE_ROLES].reverse()) {
    for (const id of meta.role_to_group_ids[role] ?? []) {
      if (seen.has(id) || (role === 'admin' && id === meta.creator_user_id)) continue;
      seen.add(id);
      if (id === EVERYONE) {
        grants.push({ key: `everyone:${id}`, kind: 'everyone', id, name: EVERYONE_LABEL, role, target: { kind: 'group', id } });
        continue;
      }
      const group = principals?.groups.get(id);
      if (group) {
        grants.push({ key: `group:${id}`, kind: 'group', id, name: group.name, role, target: { kind: 'group', id } });
        continue;
      }
      const user = principals?.users.get(id);
      grants.push({
        key: `user:${id}`,
        kind: 'user',
        id,
        name: user?.email ?? 'Former member',
        role,
        target: user ? { kind: 'user', email: user.email } : undefined,
      });
    }
  }
  return grants.sort((a, b) => kindOrder[a.kind] - kindOrder[b.kind] || a.name.localeCompare(b.name));
}

/**
 * Whether the caller may change the grants: workspace admins, the creator, and holders of the
 * admin role (directly, through a group they are in, or through the everyone grant). The server
 * decides in the end; this only keeps controls away from those who could not use them.
 */
export function canManageSharing(
  meta: HistoryAccess,
  me: { userId?: string; email?: string; isWorkspaceAdmin: boolean },
  principals: Principals | undefined,
): boolean {
  if (me.isWorkspaceAdmin) return true;
  if (!me.userId) return false;
  if (meta.creator_user_id === me.userId) return true;
  const email = me.email?.toLowerCase();
  return (meta.role_to_group_ids.admin ?? []).some(
    (id) =>
      id === me.userId ||
      id === EVERYONE ||
      (email !== undefined && (principals?.groups.get(id)?.members ?? []).some((m) => m.toLowerCase() === email)),
  );
}
