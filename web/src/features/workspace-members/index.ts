export { MembersPage, PendingInvites, WorkspaceInvitesPage } from './components/MembersPage';
export { InviteDialog } from './components/InviteDialog';
export * from './components/ui';
export {
  listMembers,
  membersQueryKey,
  seatLabel,
  useAdminOrDuty,
  useCanAccessWorkspaceSettings,
  useWorkspaceRole,
  type WorkspaceMember,
} from './api';
