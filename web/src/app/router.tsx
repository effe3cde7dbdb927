import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { CrashFallback } from '@/components/ErrorBoundary';
import { DEFAULT_APP_ROUTE } from '@/lib/constants';
import { AppShell } from './AppShell';
import { RequireAuth } from './RequireAuth';
import { RequireOnboarding } from './RequireOnboarding';
import { RootLayout } from './RootLayout';
import { AuthRoute } from './routes/AuthRoute';
import { NotFound } from './routes/NotFound';
import {
  AiClassifierRoute,
  ApiKeysRoute,
  EmailActionRoute,
  ForgotPasswordRoute,
  MailboxRoute,
  PrivacyRoute,
  PronunciationDictionariesRoute,
  ResetPasswordRoute,
  ShareRoute,
  SignInRoute,
  SignUpRoute,
  SoundEffectsRoute,
  TermsRoute,
  UsageRoute,
  SpeechToSpeechRoute,
  ProfessionalCloneRoute,
  VoiceDesignRoute,
  MusicRoute,
  VoiceIsolatorRoute,
  VoiceLabRoute,
  VoiceLibraryRoute,
  VoiceRoute,
} from './routes/pages';
import { OnboardingNextRoute, OnboardingRoute } from './routes/onboarding';
import { SpeechToTextRoute } from './routes/SpeechToTextRoute';
import { TextToSpeechRoute } from './routes/TextToSpeechRoute';
import {
  AuditLogRoute,
  ServiceAccountsRoute,
  WebhooksRoute,
  WorkspaceGroupsRoute,
  WorkspaceInvitesRoute,
  WorkspaceMembersRoute,
  WorkspaceSecurityRoute,
} from './routes/workspace';
import { AccountSettingsRoute, InviteRoute, SecurityRoute, SsoRoute } from './routes/accountPages';

export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    errorElement: <CrashFallback />,
    children: [
      { path: '/', element: <Navigate to={DEFAULT_APP_ROUTE} replace /> },
      {
        element: <AuthRoute />,
        children: [
          { path: '/app/sign-in', element: <SignInRoute /> },
          { path: '/app/sign-up', element: <SignUpRoute /> },
          { path: '/app/sign-in/forgot-password', element: <ForgotPasswordRoute /> },
          { path: '/app/sign-in/reset-password', element: <ResetPasswordRoute /> },
          { path: '/app/action', element: <EmailActionRoute /> },
          { path: '/app/sso', element: <SsoRoute /> },
          { path: '/app/invite', element: <InviteRoute /> },
        ],
      },
      { path: '/app/dev/mailbox', element: <MailboxRoute /> },
      { path: '/share/:token', element: <ShareRoute /> },
      // What this self-hosted server is and stores; public, linked from the sign-up form.
      { path: '/terms', element: <TermsRoute /> },
      { path: '/privacy', element: <PrivacyRoute /> },
      {
        element: <RequireAuth />,
        children: [
          // The onboarding survey and what comes next: full pages, outside the app shell.
          { path: '/app/onboarding', element: <OnboardingRoute /> },
          { path: '/app/onboarding/next', element: <OnboardingNextRoute /> },
          {
            element: <RequireOnboarding />,
            children: [
              {
                element: <AppShell />,
                children: [
                  { path: '/app', element: <Navigate to={DEFAULT_APP_ROUTE} replace /> },
                  { path: '/app/home', element: <Navigate to={DEFAULT_APP_ROUTE} replace /> },
                  { path: '/app/speech-synthesis', element: <Navigate to={DEFAULT_APP_ROUTE} replace /> },
                  // One route for both tabs, so switching tabs keeps the page state.
                  { path: '/app/speech-synthesis/text-to-speech/*', element: <TextToSpeechRoute /> },
                  { path: '/app/speech-synthesis/speech-to-speech', element: <SpeechToSpeechRoute /> },
                  { path: '/app/ai-classifier', element: <AiClassifierRoute /> },
                  { path: '/app/speech-to-text', element: <SpeechToTextRoute /> },
                  { path: '/app/speech-to-text/:transcriptId', element: <SpeechToTextRoute /> },
                  { path: '/app/voice-isolator', element: <VoiceIsolatorRoute /> },
                  { path: '/app/pronunciation-dictionaries', element: <PronunciationDictionariesRoute /> },
                  { path: '/app/sound-effects', element: <Navigate to="/app/sound-effects/generate" replace /> },
                  { path: '/app/sound-effects/generate', element: <SoundEffectsRoute tab="generate" /> },
                  { path: '/app/sound-effects/history', element: <SoundEffectsRoute tab="history" /> },
                  { path: '/app/sound-effects/explore', element: <SoundEffectsRoute tab="explore" /> },
                  { path: '/app/sound-effects/explore/search', element: <SoundEffectsRoute tab="explore" /> },
                  { path: '/app/sound-effects/explore/category/:categoryId', element: <SoundEffectsRoute tab="explore" /> },
                  { path: '/app/music', element: <MusicRoute /> },
                  { path: '/app/voice-lab', element: <VoiceLabRoute /> },
                  { path: '/app/voice-lab/:voiceId', element: <VoiceRoute /> },
                  { path: '/app/voice-lab/design', element: <VoiceDesignRoute /> },
                  { path: '/app/voice-library', element: <VoiceLibraryRoute /> },
                  { path: '/app/voice-lab/professional', element: <ProfessionalCloneRoute /> },
                  { path: '/app/settings', element: <AccountSettingsRoute /> },
                  { path: '/app/settings/security', element: <SecurityRoute /> },
                  { path: '/app/settings/api-keys', element: <ApiKeysRoute /> },
                  { path: '/app/developers/api-keys', element: <ApiKeysRoute /> },
                  { path: '/app/developers', element: <Navigate to="/app/developers/api-keys" replace /> },
                  { path: '/app/usage', element: <UsageRoute /> },
                  { path: '/app/usage/workspace', element: <UsageRoute workspace /> },
                  { path: '/app/developers/usage', element: <UsageRoute /> },
                  // Workspace administration (members, groups, keys, webhooks, security, audit log).
                  { path: '/app/workspace', element: <Navigate to="/app/workspace/members" replace /> },
                  { path: '/app/workspace/members', element: <WorkspaceMembersRoute /> },
                  { path: '/app/settings/workspace-invites', element: <WorkspaceInvitesRoute /> },
                  { path: '/app/workspace/groups', element: <WorkspaceGroupsRoute /> },
                  { path: '/app/workspace/service-accounts', element: <ServiceAccountsRoute /> },
                  { path: '/app/workspace/webhooks', element: <WebhooksRoute /> },
                  { path: '/app/developers/webhooks', element: <WebhooksRoute /> },
                  { path: '/app/settings/webhooks', element: <WebhooksRoute /> },
                  { path: '/app/workspace/security', element: <WorkspaceSecurityRoute /> },
                  { path: '/app/workspace/audit-log', element: <AuditLogRoute /> },
                  { path: '/app/*', element: <NotFound /> },
                ],
              },
            ],
          },
        ],
      },
      { path: '*', element: <NotFound standalone /> },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
