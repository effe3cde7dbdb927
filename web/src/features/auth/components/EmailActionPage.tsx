import { useQuery } from '@tanstack/react-query';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { Spinner } from '@/components/Spinner';
import { ApiError } from '@/lib/api';
import { MESSAGES } from '@/lib/constants';
import { safeRedirect } from '@/lib/redirect';
import { verifyEmail } from '../api';
import { AuthHeading, Notice } from './AuthLayout';

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

/**
 * Email-action handler (spec §2): /app/action?mode=…&oobCode=…
 * verifyEmail → confirmation dialog then sign-in; resetPassword → the
 * reset-password route with the code; recoverEmail → nothing; others → error.
 */
export function EmailActionPage() {
  const [params] = useSearchParams();
  const mode = params.get('mode');
  const code = params.get('oobCode') ?? params.get('verificationCode') ?? '';
  const continueUrl = params.get('continueUrl');

  switch (mode) {
    case 'verifyEmail':
      return <VerifyEmail code={code} continueUrl={continueUrl} />;
    case 'resetPassword':
      return <Navigate to={`/app/sign-in/reset-password?${params.toString()}`} replace />;
    case 'recoverEmail':
      return <Navigate to="/app/sign-in" replace />;
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
