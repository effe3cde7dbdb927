export { MembersPage, PendingInvites, WorkspaceInvitesPage } from './components/MembersPage';
export { InviteDialog } from './components/InviteDialog';
export { seatLabel } from './api';
