import type { QueryClient } from '@tanstack/react-query';
import { client, unwrap, type Schemas } from '@/lib/api';

export type WorkspaceMembership = Schemas['WorkspaceMembership'];

export const workspacesQueryKey = ['workspaces'] as const;

export const listWorkspaces = () => unwrap(client.GET('/api/workspaces'));
export const switchWorkspace = (workspaceId: string) =>
  unwrap(client.POST('/api/workspaces/switch', { body: { workspace_id: workspaceId } }));

/**
 * After a switch every cached answer belongs to the old workspace: reset them
 * all (active ones refetch at once) and re-read the session.
 */
export async function refetchEverything(queryClient: QueryClient): Promise<void> {
  await queryClient.cancelQueries();
  await Promise.all([
    queryClient.resetQueries({ predicate: (q) => q.queryKey[0] !== 'session' }),
    queryClient.invalidateQueries({ queryKey: ['session'] }),
  ]);
}

export function roleLabel(w: Pick<WorkspaceMembership, 'role' | 'is_owner'>): string {
  if (w.is_owner) return 'Owner';
  return w.role === 'admin' ? 'Admin' : 'Editor';
}

/** A new free workspace owned by the user; the session moves to it. */
export const createWorkspace = (name: string) => unwrap(client.POST('/api/workspaces', { body: { name } }));

/** Renames the workspace the session works in (admins). */
export const renameWorkspace = (name: string) => unwrap(client.PATCH('/api/workspace', { body: { name } }));
