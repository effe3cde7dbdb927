import { useQuery } from '@tanstack/react-query';
import { client, isApiError, unwrap, type Schemas } from '@/lib/api';

/** What the caller may do in the current workspace (GET /api/workspace/access). */
export type WorkspaceAccess = Schemas['WorkspaceAccess'];

/** Group permissions that name a product feature the server gates today. */
export const FEATURES = {
  textToSpeech: 'text_to_speech',
  createUserApiKey: 'create_user_api_key',
} as const;
export type Feature = (typeof FEATURES)[keyof typeof FEATURES];

/** Group permissions that delegate an admin screen to editors. */
export const DUTIES = {
  webhooks: 'webhooks_manage',
  auditLog: 'audit_log_read',
  serviceAccounts: 'service_accounts_manage',
  invite: 'workspace_members_invite',
  removeMembers: 'workspace_members_remove',
  groupMembers: 'group_members_manage',
} as const;
export type Duty = (typeof DUTIES)[keyof typeof DUTIES];

// Under 'workspace' so switching workspaces (which resets every query but the session) refetches it.
export const accessQueryKey = ['workspace', 'access'] as const;

export const getAccess = () => unwrap(client.GET('/api/workspace/access'));

/**
 * Whether the caller may use a feature. Unknown access (loading, failed) counts as allowed:
 * the server decides, and a 403 feature_not_allowed is handled where it happens.
 */
export function featureAllowed(access: WorkspaceAccess | undefined, feature: string): boolean {
  if (!access || access.role === 'admin' || access.features == null) return true;
  return access.features.includes(feature);
}

/** Whether the caller holds a duty: admins hold every duty; unknown access holds none. */
export function holdsDuty(access: WorkspaceAccess | undefined, duty: string): boolean {
  if (!access) return false;
  return access.role === 'admin' || access.duties.includes(duty);
}

/** A 403 answered because the caller's groups don't allow the feature. */
export function isFeatureNotAllowed(error: unknown): boolean {
  return isApiError(error, 403) && error.errorType === 'feature_not_allowed';
}

/** The caller's role, allowed features and delegated duties in the current workspace, cached. */
export function useWorkspaceAccess() {
  const query = useQuery({ queryKey: accessQueryKey, queryFn: getAccess, staleTime: 60_000, retry: false });
  const access = query.data;
  return {
    access,
    isPending: query.isPending,
    isAdmin: access?.role === 'admin',
    canUse: (feature: string) => featureAllowed(access, feature),
    holds: (duty: string) => holdsDuty(access, duty),
    query,
  };
}
