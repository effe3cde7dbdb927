import { client, unwrap, type Schemas } from '@/lib/api';

export type InvitePreview = Schemas['WorkspaceInvitePreview'];

export const inviteQueryKey = (code: string) => ['invite', code] as const;

export const getInvite = (code: string) =>
  unwrap(client.GET('/api/workspace/invites/{code}', { params: { path: { code } } }));
export const acceptInvite = (code: string) =>
  unwrap(client.POST('/v1/workspace/invites/{code}/accept', { params: { path: { code } } }));
export const declineInvite = (code: string) =>
  unwrap(client.POST('/v1/workspace/invites/{code}/decline', { params: { path: { code } } }));

export const INVITE_MESSAGES = {
  invalid: 'This invitation is invalid, has expired or was withdrawn.',
  declined: 'You declined the invitation.',
  accepted: (name: string) => `You joined ${name}.`,
} as const;

export function seatLabel(seat: InvitePreview['seat_type']): string {
  return seat === 'workspace_admin' ? 'Admin' : 'Member';
}

export function sameEmail(a: string | undefined | null, b: string | undefined | null): boolean {
  return !!a && !!b && a.trim().toLowerCase() === b.trim().toLowerCase();
}
