import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { Spinner } from '@/components/Spinner';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { DEFAULT_APP_ROUTE, MESSAGES } from '@/lib/constants';
import { safeRedirect } from '@/lib/redirect';
import { toast } from '@/lib/toast';
import { ACTION_MESSAGES, applyEmailAction, verifyEmail, verifySensitiveActionCode } from '../api';
import { useSession, sessionQueryKey } from '@/lib/session';
import { storePendingAction } from '../pendingAction';
import { AuthHeading, Notice } from '@/components/auth/AuthLayout';

function signInPath(continueUrl: string | null): string {
  if (!continueUrl) return '/app/sign-in';
  let path = continueUrl;
  try {
    const url = new URL(continueUrl, window.location.origin);
    if (url.origin !== window.location.origin) return '/app/sign-in';
    path = `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return '/app/sign-in';
  }
  const target = safeRedirect(path);
  return `/app/sign-in?redirect=${encodeURIComponent(target)}`;
}

function VerifyEmail({ code, continueUrl }: { code: string; continueUrl: string | null }) {
  const navigate = useNavigate();
  const verify = useQuery({
    queryKey: ['auth', 'verify-email', code],
    queryFn: () => verifyEmail(code),
    enabled: code !== '',
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
    refetchOnWindowFocus: false,
  });
  const next = signInPath(continueUrl);

  if (!code || verify.isError) {
    const invalid = !code || (verify.error instanceof ApiError && verify.error.errorType === 'invalid_action_code');
    return (
      <>
        <AuthHeading title="Email verification" />
        <Notice tone="error">
          {invalid
            ? 'This verification link is invalid, has expired or has already been used.'
            : 'Something went wrong while verifying your email. Please try again.'}
        </Notice>
        <p className="mt-6 text-center text-sm">
          <Link to="/app/sign-in" className="font-medium underline-offset-4 hover:underline">
            Back to sign in
          </Link>
        </p>
      </>
    );
  }

  if (verify.isPending) {
    return (
      <div className="flex items-center gap-3 text-sm text-gray-600 dark:text-gray-400">
        <Spinner /> Verifying your email…
      </div>
    );
  }

  return (
    <Dialog
      open
      onOpenChange={(open) => !open && navigate(next, { replace: true })}
      title="Email Verification"
      description={MESSAGES.emailVerified}
      footer={<Button onClick={() => navigate(next, { replace: true })}>Sign in</Button>}
    />
  );
}


/** Applies a one-shot action code once per page view (the query cache keeps the answer). */
function useAction(mode: string, code: string, continueUrl: string | null) {
  return useQuery({
    queryKey: ['auth', 'action', mode, code],
    queryFn: () => applyEmailAction({ mode, code, ...(continueUrl ? { continue_url: continueUrl } : {}) }),
    enabled: code !== '',
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
    refetchOnWindowFocus: false,
  });
}

/** The text for a failed action: a bad code, too many attempts, the server's message, or the generic one. */
export function actionErrorText(error: unknown): string {
  if (!(error instanceof ApiError)) return MESSAGES.genericHttpError;
  if (error.errorType === 'invalid_action_code') return ACTION_MESSAGES.invalidLink;
  if (error.status === 429) return MESSAGES.tooManyAttempts;
  return httpErrorMessage(error);
}

function BackToSignIn() {
  return (
    <p className="mt-6 text-center text-sm">
      <Link to="/app/sign-in" className="font-medium underline-offset-4 hover:underline">
        Back to sign in
      </Link>
    </p>
  );
}

function Working({ label }: { label: string }) {
  return (
    <div className="flex items-center gap-3 text-sm text-gray-600 dark:text-gray-400">
      <Spinner /> {label}
    </div>
  );
}

/** optOutOfUpdates: the opted-out dialog, or the error dialog (spec §2, §8: opt-out failure shows an error dialog). */
function OptOut({ code, continueUrl }: { code: string; continueUrl: string | null }) {
  const navigate = useNavigate();
  const action = useAction('optOutOfUpdates', code, continueUrl);
  if (code && action.isPending) return <Working label="Opting you out…" />;
  const next = action.data?.continue_url ? safeRedirect(action.data.continue_url) : '/';
  const ok = action.isSuccess;
  const close = () => navigate(ok ? next : '/', { replace: true });
  return (
    <>
      <AuthHeading title="Product updates" />
      <Dialog
        open
        onOpenChange={(open) => !open && close()}
        title={ok ? 'Opted out' : 'Something went wrong'}
        description={ok ? ACTION_MESSAGES.optedOut : ACTION_MESSAGES.optOutFailed}
        footer={<Button onClick={close}>OK</Button>}
      />
    </>
  );
}

/** recoverEmail: undoes an email change; the server ends every session. */
function RecoverEmail({ code }: { code: string }) {
  const queryClient = useQueryClient();
  const action = useQuery({
    queryKey: ['auth', 'action', 'recoverEmail', code],
    queryFn: async () => {
      const res = await applyEmailAction({ mode: 'recoverEmail', code });
      queryClient.setQueryData(sessionQueryKey, null);
      return res;
    },
    enabled: code !== '',
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
    refetchOnWindowFocus: false,
  });
  if (code && action.isPending) return <Working label="Restoring your email address…" />;
  if (!code || action.isError || !action.data) {
    return (
      <>
        <AuthHeading title="Restore email address" />
        <Notice tone="error">{code ? actionErrorText(action.error) : ACTION_MESSAGES.invalidLink}</Notice>
        <BackToSignIn />
      </>
    );
  }
  return (
    <>
      <AuthHeading title="Email address restored" />
      <Notice tone="success">
        {action.data.message ?? ACTION_MESSAGES.emailRecovered}
        {action.data.email && (
          <span className="mt-2 block">
            Your account uses <strong>{action.data.email}</strong> again.
          </span>
        )}
      </Notice>
      <div className="mt-6 flex flex-col gap-3">
        <Link
          to="/app/sign-in"
          className="flex h-10 items-center justify-center rounded-lg bg-gray-900 text-sm font-medium text-white hover:bg-gray-800 dark:bg-white dark:text-gray-900"
        >
          Sign in
        </Link>
        <Link
          to="/app/sign-in/forgot-password"
          className="text-center text-sm font-medium underline-offset-4 hover:underline"
        >
          Reset your password
        </Link>
      </div>
    </>
  );
}

/** verifySignInRequest: the support access dialog; needs the signed-in user (spec §2, §6, §8). */
function SupportAccess({ code }: { code: string }) {
  const navigate = useNavigate();
  const session = useSession();
  const [open, setOpen] = useState(true);
  const grant = useMutation({
    mutationFn: () => applyEmailAction({ mode: 'verifySignInRequest', code }),
    onSuccess: (res) => {
      toast.success(ACTION_MESSAGES.supportGranted);
      navigate(res.redirect_to ?? '/', { replace: true });
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });

  if (!code) {
    return (
      <>
        <AuthHeading title={ACTION_MESSAGES.supportTitle} />
        <Notice tone="error">{ACTION_MESSAGES.invalidLink}</Notice>
        <BackToSignIn />
      </>
    );
  }
  if (session.isPending) return <Working label="Loading…" />;
  if (!session.data) {
    const here = `/app/action?${new URLSearchParams({ mode: 'verifySignInRequest', verificationCode: code }).toString()}`;
    return (
      <>
        <AuthHeading title={ACTION_MESSAGES.supportTitle} />
        <Notice>{ACTION_MESSAGES.signInForSupport}</Notice>
        <div className="mt-6">
          <Button
            className="w-full"
            onClick={() => {
              storePendingAction(here);
              navigate('/app/sign-in');
            }}
          >
            Sign in
          </Button>
        </div>
      </>
    );
  }
  const cancel = () => {
    setOpen(false);
    navigate(DEFAULT_APP_ROUTE, { replace: true });
  };
  return (
    <>
      <AuthHeading title={ACTION_MESSAGES.supportTitle} subtitle={`Signed in as ${session.data.email}`} />
      <Dialog
        open={open}
        onOpenChange={(o) => !o && cancel()}
        title={ACTION_MESSAGES.supportTitle}
        description={ACTION_MESSAGES.supportText}
        footer={
          <>
            <Button variant="outline" onClick={cancel}>
              Cancel
            </Button>
            <Button loading={grant.isPending} onClick={() => grant.mutate()}>
              {ACTION_MESSAGES.supportConfirm}
            </Button>
          </>
        }
      />
    </>
  );
}

/**
 * sensitiveActionVerificationCode (spec §3, §7, §8): the link in the sensitive-action mail
 * verifies the signed-in session, then the user retries the action.
 */
function SensitiveAction({ code }: { code: string }) {
  const navigate = useNavigate();
  const session = useSession();
  const verify = useQuery({
    queryKey: ['auth', 'sensitive-action', code],
    queryFn: () => verifySensitiveActionCode(code),
    enabled: !!session.data,
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
    refetchOnWindowFocus: false,
  });
  if (session.isPending) return <Working label="Loading…" />;
  if (!session.data) {
    const here = `/app/action?${new URLSearchParams({ sensitiveActionVerificationCode: code }).toString()}`;
    return (
      <>
        <AuthHeading title={ACTION_MESSAGES.sensitiveTitle} />
        <Notice>{ACTION_MESSAGES.signInForSensitive}</Notice>
        <div className="mt-6">
          <Button
            className="w-full"
            onClick={() => {
              storePendingAction(here);
              navigate('/app/sign-in');
            }}
          >
            Sign in
          </Button>
        </div>
      </>
    );
  }
  if (verify.isPending) return <Working label="Verifying…" />;
  if (verify.isError) {
    const invalid = verify.error instanceof ApiError && verify.error.errorType === 'invalid_verification_code';
    return (
      <>
        <AuthHeading title={ACTION_MESSAGES.sensitiveTitle} />
        <Notice tone="error">{invalid ? ACTION_MESSAGES.invalidLink : actionErrorText(verify.error)}</Notice>
      </>
    );
  }
  return (
    <>
      <AuthHeading title={ACTION_MESSAGES.sensitiveTitle} />
      <Notice tone="success">{ACTION_MESSAGES.sensitiveVerified}</Notice>
      <div className="mt-6 flex flex-col gap-3">
        <Link
          to="/app/settings"
          className="flex h-10 items-center justify-center rounded-lg bg-gray-900 text-sm font-medium text-white hover:bg-gray-800 dark:bg-white dark:text-gray-900"
        >
          Back to settings
        </Link>
      </div>
    </>
  );
}

/**
 * Email-action handler (spec §2): /app/action?mode=…&oobCode=…
 * verifyEmail → confirmation dialog then sign-in; resetPassword → the
 * reset-password route with the code; recoverEmail, optOutOfUpdates and
 * verifySignInRequest → POST /api/auth/action; others → the unknown-mode error.
 */
export function EmailActionPage() {
  const [params] = useSearchParams();
  const mode = params.get('mode');
  const code = params.get('oobCode') ?? params.get('verificationCode') ?? '';
  const continueUrl = params.get('continueUrl');
  const sensitiveCode = params.get('sensitiveActionVerificationCode');
  if (sensitiveCode) return <SensitiveAction code={sensitiveCode} />;

  switch (mode) {
    case 'verifyEmail':
      return <VerifyEmail code={code} continueUrl={continueUrl} />;
    case 'resetPassword':
      return <Navigate to={`/app/sign-in/reset-password?${params.toString()}`} replace />;
    case 'recoverEmail':
      return <RecoverEmail code={code} />;
    case 'optOutOfUpdates':
      return <OptOut code={code} continueUrl={continueUrl} />;
    case 'verifySignInRequest':
      return <SupportAccess code={code} />;
    default:
      return (
        <>
          <AuthHeading title="Something went wrong" />
          <Notice tone="error">{MESSAGES.unknownMode}</Notice>
          <p className="mt-6 text-center text-sm">
            <Link to="/app/sign-in" className="font-medium underline-offset-4 hover:underline">
              Back to sign in
            </Link>
          </p>
        </>
      );
  }
}
