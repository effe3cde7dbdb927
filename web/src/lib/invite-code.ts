import { getItem, setItem } from '@/lib/storage';

/** Spec §9: the invite code is kept under this localStorage key while the invitee signs in or up. */
export const INVITE_CODE_KEY = 'workspaceInviteCode';

export function getStoredInviteCode(): string | null {
  const v = getItem(INVITE_CODE_KEY);
  return v && /^[A-Za-z0-9_-]{1,200}$/.test(v) ? v : null;
}

export function storeInviteCode(code: string): void {
  setItem(INVITE_CODE_KEY, code);
}

export function clearStoredInviteCode(): void {
  setItem(INVITE_CODE_KEY, null);
}

/** The invitation page for a code. */
export function invitePath(code: string): string {
  return `/app/invite?code=${encodeURIComponent(code)}`;
}
