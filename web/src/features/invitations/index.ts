export { InvitePage } from './components/InvitePage';
export { INVITE_CODE_KEY, clearStoredInviteCode, getStoredInviteCode, invitePath, storeInviteCode } from './storage';
