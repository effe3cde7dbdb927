import { AccountSettingsPage } from '@/features/account-settings';
import { InvitePage } from '@/features/invitations';
import { SecurityPage } from '@/features/security';
import { SsoSignInPage } from '@/features/sso';
import { useDocumentTitle } from '../useDocumentTitle';

/** Routes of the signed-in user's own screens: settings, security, SSO sign-in, invitations. */
export function AccountSettingsRoute() {
  useDocumentTitle('Settings');
  return <AccountSettingsPage />;
}
export function SecurityRoute() {
  useDocumentTitle('Security');
  return <SecurityPage />;
}
export function SsoRoute() {
  useDocumentTitle('Sign in with SSO');
  return <SsoSignInPage />;
}
export function InviteRoute() {
  useDocumentTitle('Workspace invitation');
  return <InvitePage />;
}
