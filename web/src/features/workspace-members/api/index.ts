import { client, unwrap, type Schemas } from '@/lib/api';

export type WorkspaceInvite = Schemas['WorkspaceInvite'];
export type SeatType = 'workspace_admin' | 'workspace_member';

export const SEAT_LABELS: Record<string, string> = {
  workspace_admin: 'Admin',
  workspace_member: 'Editor',
  workspace_lite_member: 'Lite member',
};

export const seatLabel = (seat: string | null | undefined) => (seat ? (SEAT_LABELS[seat] ?? seat) : '—');

export const invitesQueryKey = ['workspace', 'invites'] as const;
export const seatsQueryKey = ['workspace', 'seats'] as const;

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
