import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { CrashFallback } from '@/components/ErrorBoundary';
import { DEFAULT_APP_ROUTE } from '@/lib/constants';
import { AppShell } from './AppShell';
import { RequireAuth } from './RequireAuth';
import { RootLayout } from './RootLayout';
import { AuthRoute } from './routes/AuthRoute';
import { NotFound } from './routes/NotFound';
import {
  ApiKeysRoute,
  EmailActionRoute,
  ForgotPasswordRoute,
  MailboxRoute,
  ResetPasswordRoute,
  ShareRoute,
  SignInRoute,
  SignUpRoute,
  UsageRoute,
} from './routes/pages';
import { TextToSpeechRoute } from './routes/TextToSpeechRoute';

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
        ],
      },
      { path: '/app/dev/mailbox', element: <MailboxRoute /> },
      { path: '/share/:token', element: <ShareRoute /> },
      {
        element: <RequireAuth />,
        children: [
          {
            element: <AppShell />,
            children: [
              { path: '/app', element: <Navigate to={DEFAULT_APP_ROUTE} replace /> },
              { path: '/app/home', element: <Navigate to={DEFAULT_APP_ROUTE} replace /> },
              { path: '/app/speech-synthesis', element: <Navigate to={DEFAULT_APP_ROUTE} replace /> },
              // One route for both tabs, so switching tabs keeps the page state.
              { path: '/app/speech-synthesis/text-to-speech/*', element: <TextToSpeechRoute /> },
              { path: '/app/settings/api-keys', element: <ApiKeysRoute /> },
              { path: '/app/developers/api-keys', element: <ApiKeysRoute /> },
              { path: '/app/developers', element: <Navigate to="/app/developers/api-keys" replace /> },
              { path: '/app/usage', element: <UsageRoute /> },
              { path: '/app/developers/usage', element: <UsageRoute /> },
              { path: '/app/*', element: <NotFound /> },
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
