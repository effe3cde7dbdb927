import { useQuery } from '@tanstack/react-query';
import { useWorkspaceAccess } from '@/features/access';
import { client, unwrap, type Schemas } from '@/lib/api';

export type WorkspaceMember = Schemas['WorkspaceMemberResponseModel'];
export type WorkspaceInvite = Schemas['WorkspaceInvite'];
export type SeatType = 'workspace_admin' | 'workspace_member';

export const SEAT_LABELS: Record<string, string> = {
  workspace_admin: 'Admin',
  workspace_member: 'Editor',
  workspace_lite_member: 'Lite member',
};

export const seatLabel = (seat: string | null | undefined) => (seat ? (SEAT_LABELS[seat] ?? seat) : '—');

export const membersQueryKey = ['workspace', 'members'] as const;
export const invitesQueryKey = ['workspace', 'invites'] as const;
export const isAdminQueryKey = ['workspace', 'is-admin'] as const;
export const canAccessSettingsQueryKey = ['workspace', 'can-access-settings'] as const;
export const seatsQueryKey = ['workspace', 'seats'] as const;

export const listMembers = () => unwrap(client.GET('/v1/workspace/members'));
export const listInvites = () => unwrap(client.GET('/api/workspace/invites'));

export const updateMember = (email: string, change: { seat?: SeatType; locked?: boolean }) =>
  unwrap(
    client.POST('/v1/workspace/members', {
      body: {
        email,
        ...(change.seat ? { workspace_seat_type: change.seat } : {}),
        ...(change.locked !== undefined ? { is_locked: change.locked } : {}),
      },
    }),
  );

export const removeMember = (userId: string) =>
  unwrap(client.DELETE('/api/workspace/members/{user_id}', { params: { path: { user_id: userId } } }));

export const inviteMember = (email: string, seat: SeatType) =>
  unwrap(client.POST('/v1/workspace/invites/add', { body: { email, seat_type: seat } }));

export const inviteMembers = (emails: string[], seat: SeatType) =>
  unwrap(client.POST('/v1/workspace/invites/add-bulk', { body: { emails, seat_type: seat } }));

export const withdrawInvite = (email: string) => unwrap(client.DELETE('/v1/workspace/invites', { body: { email } }));

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

/** Seats of the plan: /v1/user/subscription carries max_seats (the reference omits it from the model). */
export async function getSeatLimit(): Promise<number | null> {
  const sub = (await unwrap(client.GET('/v1/user/subscription'))) as { max_seats?: number; tier?: string };
  return typeof sub.max_seats === 'number' ? sub.max_seats : null;
}

/** Parses a bulk-invite text: addresses separated by commas, semicolons, spaces or new lines; de-duplicated. */
export function parseEmails(text: string): { valid: string[]; invalid: string[] } {
  const seen = new Set<string>();
  const valid: string[] = [];
  const invalid: string[] = [];
  for (const raw of text.split(/[\s,;]+/)) {
    const email = raw.trim().toLowerCase();
    if (!email || seen.has(email)) continue;
    seen.add(email);
    (isEmail(email) ? valid : invalid).push(email);
  }
  return { valid, invalid };
}

export function isEmail(s: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s.trim());
}

/** Seats used counts members and pending invites (the server refuses an invite when they fill the plan). */
export function seatsUsed(members: number, pendingInvites: number): number {
  return members + pendingInvites;
}
