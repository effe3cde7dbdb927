export { MembersPage, PendingInvites, WorkspaceInvitesPage } from './components/MembersPage';
export { InviteDialog } from './components/InviteDialog';
export * from './components/ui';
export {
  listMembers,
  membersQueryKey,
  seatLabel,
  useCanAccessWorkspaceSettings,
  useWorkspaceRole,
  type WorkspaceMember,
} from './api';
