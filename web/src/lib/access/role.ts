import { useQuery } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api';
import { useWorkspaceAccess } from './api';

export const isAdminQueryKey = ['workspace', 'is-admin'] as const;
export const canAccessSettingsQueryKey = ['workspace', 'can-access-settings'] as const;

export const getIsAdmin = () => unwrap(client.GET('/v1/workspace/is-admin'));
export const getCanAccessSettings = () => unwrap(client.GET('/v1/workspace/can-access-workspace-settings'));

/**
 * Whether the caller is an admin of the current workspace (GET /v1/workspace/is-admin).
 * `isAdmin` is false while loading or on failure, so admin controls never flash for editors.
 */
export function useWorkspaceRole() {
  const query = useQuery({ queryKey: isAdminQueryKey, queryFn: getIsAdmin, staleTime: 60_000, retry: false });
  return { isAdmin: query.data?.is_admin === true, isPending: query.isPending, query };
}

/**
 * Whether the caller may use an admin screen a group can delegate: workspace admins, and editors
 * whose groups give them the duty (e.g. audit_log_read). `allowed` is false while unknown.
 */
export function useAdminOrDuty(duty: string) {
  const role = useWorkspaceRole();
  const access = useWorkspaceAccess();
  const allowed = role.isAdmin || access.holds(duty);
  return { allowed, isAdmin: role.isAdmin, isPending: !allowed && (role.isPending || access.isPending) };
}

export function useCanAccessWorkspaceSettings() {
  const query = useQuery({ queryKey: canAccessSettingsQueryKey, queryFn: getCanAccessSettings, staleTime: 60_000, retry: false });
  return query.data?.can_access_workspace_settings === true;
}
