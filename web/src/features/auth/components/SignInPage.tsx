import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { Button } from '@/components/Button';
import { PasswordField, TextField } from '@/components/Field';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { MESSAGES } from '@/lib/constants';
import { safeRedirect } from '@/lib/redirect';
import { toast } from '@/lib/toast';
import {
  fieldErrors,
  sendVerificationEmail,
  sessionQueryKey,
  signIn,
  signInSchema,
  type FieldErrors,
} from '../api';
import { useSession } from '../hooks/useSession';
import { AuthHeading, Notice } from './AuthLayout';

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
  const target = safeRedirect(params.get('redirect'));

  const mutation = useMutation({
    mutationFn: signIn,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: sessionQueryKey });
      navigate(target, { replace: true });
    },
    onError: (err, vars) => {
      if (err instanceof ApiError && err.errorType === 'email_not_verified') {
        setUnverifiedEmail(vars.email);
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

  if (session.data) return <Navigate to={target} replace />;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setFormError(null);
    setUnverifiedEmail(null);
    const parsed = signInSchema.safeParse({ email, password });
    if (!parsed.success) {
      setErrors(fieldErrors<Field>(parsed.error));
      return;
    }
    setErrors({});
    mutation.mutate(parsed.data);
  };

  return (
    <>
      <AuthHeading
        title="Welcome back"
        subtitle={
          <>
            Don&apos;t have an account?{' '}
            <Link
              to="/app/sign-up"
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
    </>
  );
}
