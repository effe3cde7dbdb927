import { AuditLogPage } from '@/features/audit-log';
import { ServiceAccountsPage } from '@/features/service-accounts';
import { WebhooksPage } from '@/features/webhooks';
import { GroupsPage } from '@/features/workspace-groups';
import { MembersPage, WorkspaceInvitesPage } from '@/features/workspace-members';
import { SecurityPage } from '@/features/workspace-security';
import { useDocumentTitle } from '../useDocumentTitle';

export function WorkspaceMembersRoute() {
  useDocumentTitle('Members');
  return <MembersPage />;
}
export function WorkspaceInvitesRoute() {
  useDocumentTitle('Workspace invitations');
  return <WorkspaceInvitesPage />;
}
export function WorkspaceGroupsRoute() {
  useDocumentTitle('Groups');
  return <GroupsPage />;
}
export function ServiceAccountsRoute() {
  useDocumentTitle('Service accounts');
  return <ServiceAccountsPage />;
}
export function WebhooksRoute() {
  useDocumentTitle('Webhooks');
  return <WebhooksPage />;
}
export function WorkspaceSecurityRoute() {
  useDocumentTitle('Workspace security');
  return <SecurityPage />;
}
export function AuditLogRoute() {
  useDocumentTitle('Audit log');
  return <AuditLogPage />;
}
