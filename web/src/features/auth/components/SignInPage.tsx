import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { Button } from '@/components/Button';
import { PasswordField, TextField } from '@/components/Field';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { ADD_2FA_ROUTE, MESSAGES } from '@/lib/constants';
import { MfaChallenge } from '@/components/auth/MfaChallenge';
import { getStoredInviteCode, invitePath } from '@/lib/invite-code';
import { browser, SSO_REQUIRED, ssoStartUrl } from '@/lib/sso';
import { safeRedirect } from '@/lib/redirect';
import { toast } from '@/lib/toast';
import { fieldErrors, sendVerificationEmail, signIn, signInSchema, type FieldErrors, type SignInResult } from '../api';
import { takePendingAction } from '../pendingAction';
import { useSession, sessionQueryKey } from '@/lib/session';
import { AuthHeading, Notice } from '@/components/auth/AuthLayout';

type Field = 'email' | 'password';

export function SignInPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const session = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors<Field>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [unverifiedEmail, setUnverifiedEmail] = useState<string | null>(null);
  const [mfaToken, setMfaToken] = useState<string | null>(null);
  // The email's organisation requires SSO: the server's message and the email to start SSO with.
  const [ssoRequired, setSsoRequired] = useState<{ email: string; message: string } | null>(null);
  // Set once this page signs the user in, so it picks the destination (not the session redirect below).
  const [finishing, setFinishing] = useState(false);
  const requested = params.get('redirect');
  const target = safeRedirect(requested);
  const redirectParam = requested ? `?redirect=${encodeURIComponent(requested)}` : '';

  /** Where to go once signed in: a pending email action, the 2FA setup, or the server's redirect_to. */
  const finish = async (res: { redirect_to?: string; mfa_enrollment_required?: boolean }) => {
    setFinishing(true);
    await queryClient.invalidateQueries({ queryKey: sessionQueryKey });
    if (res.mfa_enrollment_required) return navigate(ADD_2FA_ROUTE, { replace: true });
    const pending = takePendingAction();
    if (pending) return navigate(pending, { replace: true });
    const invite = requested ? null : getStoredInviteCode();
    if (invite) return navigate(invitePath(invite), { replace: true });
    navigate(res.redirect_to ? safeRedirect(res.redirect_to) : target, { replace: true });
  };

  const mutation = useMutation({
    mutationFn: signIn,
    onSuccess: async (res: SignInResult) => {
      if (res.mfa_required && res.mfa_token) {
        setMfaToken(res.mfa_token);
        return;
      }
      await finish(res);
    },
    onError: (err, vars) => {
      if (err instanceof ApiError && err.status === 429) {
        setFormError(MESSAGES.tooManyAttempts);
        return;
      }
      if (err instanceof ApiError && err.errorType === 'email_not_verified') {
        setUnverifiedEmail(vars.email);
        return;
      }
      if (err instanceof ApiError && err.errorType === SSO_REQUIRED) {
        setSsoRequired({ email: vars.email, message: err.message });
        return;
      }
      if (err instanceof ApiError && err.status < 500) {
        setFormError(err.message);
        return;
      }
      toast.error(httpErrorMessage(err));
    },
  });

  const resend = useMutation({
    mutationFn: (address: string) => sendVerificationEmail(address),
    onSuccess: () => toast.success('Verification email sent. Please check your inbox.'),
    onError: (err) =>
      toast.error(err instanceof ApiError && err.status < 500 ? err.message : MESSAGES.verificationEmailFailed),
  });

  if (session.data && !finishing && !mutation.isPending && !mfaToken) return <Navigate to={target} replace />;

  if (mfaToken) {
    return (
      <>
        <AuthHeading title="Two-factor authentication" subtitle="Enter the code from your authenticator app to finish signing in." />
        <MfaChallenge
          mfaToken={mfaToken}
          onVerified={(res) => finish(res)}
          onRestart={(message) => {
            setMfaToken(null);
            setPassword('');
            setFormError(message ?? null);
          }}
        />
      </>
    );
  }

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setFormError(null);
    setUnverifiedEmail(null);
    setSsoRequired(null);
    const parsed = signInSchema.safeParse({ email, password });
    if (!parsed.success) {
      setErrors(fieldErrors<Field>(parsed.error));
      return;
    }
    setErrors({});
    mutation.mutate(requested ? { ...parsed.data, redirect: requested } : parsed.data);
  };

  return (
    <>
      <AuthHeading
        title="Welcome back"
        subtitle={
          <>
            Don&apos;t have an account?{' '}
            <Link
              to={`/app/sign-up${redirectParam}`}
              className="font-medium text-gray-900 underline-offset-4 hover:underline dark:text-white"
            >
              Sign up
            </Link>
          </>
        }
      />
      {unverifiedEmail && (
        <div className="mb-6">
          <Notice tone="info">
            <p>Your email address has not been verified yet. Please check your inbox for the verification link.</p>
            <Button
              variant="outline"
              size="sm"
              className="mt-3"
              loading={resend.isPending}
              onClick={() => resend.mutate(unverifiedEmail)}
            >
              Resend verification email
            </Button>
          </Notice>
        </div>
      )}
      {ssoRequired && (
        <div className="mb-6" data-testid="sso-required">
          <Notice tone="info">
            <p>{ssoRequired.message}</p>
            <Button size="sm" className="mt-3" autoFocus onClick={() => browser.assign(ssoStartUrl(ssoRequired.email, requested))}>
              Continue with SSO
            </Button>
          </Notice>
        </div>
      )}
      {formError && (
        <div className="mb-6">
          <Notice tone="error">{formError}</Notice>
        </div>
      )}
      <form onSubmit={onSubmit} noValidate className="space-y-5">
        <TextField
          label="Email"
          type="email"
          name="email"
          autoComplete="email"
          value={email}
          onChange={(e) => {
            setEmail(e.target.value);
            setErrors((x) => ({ ...x, email: undefined }));
          }}
          error={errors.email}
          required
        />
        <PasswordField
          label="Password"
          name="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => {
            setPassword(e.target.value);
            setErrors((x) => ({ ...x, password: undefined }));
          }}
          error={errors.password}
          labelAction={
            <Link
              to="/app/sign-in/forgot-password"
              className="text-sm text-gray-600 underline-offset-4 hover:underline dark:text-gray-400"
            >
              Forgot password?
            </Link>
          }
          required
        />
        <Button type="submit" size="lg" className="w-full" loading={mutation.isPending}>
          Sign in
        </Button>
      </form>
      <div className="my-6 flex items-center gap-3 text-xs text-gray-500 uppercase">
        <span className="h-px flex-1 bg-gray-200 dark:bg-gray-800" />
        or
        <span className="h-px flex-1 bg-gray-200 dark:bg-gray-800" />
      </div>
      <Link
        to={`/app/sso${redirectParam}`}
        className="flex h-11 w-full items-center justify-center rounded-lg border border-gray-300 bg-white text-base font-medium text-gray-900 hover:bg-gray-50 focus-visible:outline-2 focus-visible:outline-offset-2 dark:border-gray-700 dark:bg-gray-900 dark:text-gray-100 dark:hover:bg-gray-800"
      >
        Sign in with SSO
      </Link>
    </>
  );
}
