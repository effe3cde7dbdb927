import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Button } from '@/components/Button';
import { PasswordField } from '@/components/Field';
import { Spinner } from '@/components/Spinner';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { MESSAGES } from '@/lib/constants';
import { toast } from '@/lib/toast';
import { checkResetCode, fieldErrors, newPasswordSchema, PASSWORD_MIN_LENGTH, resetPassword } from '../api';
import { AuthHeading, Notice } from '@/components/auth/AuthLayout';

export type ResetCodeStatus = 'checking' | 'valid' | 'invalidActionCode' | 'tooManyAttempts' | 'unknownError';

/** Maps a check-reset-code failure to the spec §8 status. */
export function resetCodeErrorStatus(err: unknown): ResetCodeStatus {
  if (err instanceof ApiError) {
    if (err.errorType === 'invalid_action_code') return 'invalidActionCode';
    if (err.status === 429 || err.errorType === 'too_many_attempts') return 'tooManyAttempts';
  }
  return 'unknownError';
}

const MESSAGES_BY_STATUS: Record<'invalidActionCode' | 'tooManyAttempts' | 'unknownError', string> = {
  invalidActionCode: 'This password reset link is invalid, has expired or has already been used. Please request a new one.',
  tooManyAttempts: MESSAGES.tooManyAttempts,
  unknownError: 'Something went wrong while checking your password reset link. Please try again.',
};

export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const code = params.get('oobCode') ?? params.get('code') ?? '';
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | undefined>();

  // A query (not an effect) so a double render in StrictMode checks once.
  const check = useQuery({
    queryKey: ['auth', 'check-reset-code', code],
    queryFn: () => checkResetCode(code),
    enabled: code !== '',
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
    refetchOnWindowFocus: false,
  });

  const status: ResetCodeStatus = !code
    ? 'invalidActionCode'
    : check.isPending
      ? 'checking'
      : check.isError
        ? resetCodeErrorStatus(check.error)
        : 'valid';

  const mutation = useMutation({
    mutationFn: (pw: string) => resetPassword(code, pw),
    onSuccess: () => {
      toast.success('Your password has been changed. Please sign in with your new password.');
      navigate('/app/sign-in', { replace: true });
    },
    onError: (err) => {
      if (err instanceof ApiError && err.errorType === 'invalid_action_code') setError(MESSAGES_BY_STATUS.invalidActionCode);
      else if (err instanceof ApiError && err.status < 500) setError(err.message);
      else toast.error(httpErrorMessage(err));
    },
  });

  if (status === 'checking') {
    return (
      <div className="flex items-center gap-3 text-sm text-gray-600 dark:text-gray-400">
        <Spinner /> Checking your reset link…
      </div>
    );
  }

  if (status !== 'valid') {
    return (
      <>
        <AuthHeading title="Reset your password" />
        <Notice tone="error">{MESSAGES_BY_STATUS[status]}</Notice>
        <div className="mt-6 flex flex-col gap-3 text-center text-sm">
          {status !== 'tooManyAttempts' && (
            <Link to="/app/sign-in/forgot-password" className="font-medium underline-offset-4 hover:underline">
              Request a new link
            </Link>
          )}
          <Link to="/app/sign-in" className="underline-offset-4 hover:underline">
            Back to sign in
          </Link>
        </div>
      </>
    );
  }

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = newPasswordSchema.safeParse({ password });
    if (!parsed.success) {
      setError(fieldErrors<'password'>(parsed.error).password);
      return;
    }
    setError(undefined);
    mutation.mutate(parsed.data.password);
  };

  return (
    <>
      <AuthHeading
        title="Choose a new password"
        subtitle={
          check.data?.email ? (
            <>
              For <strong className="text-gray-900 dark:text-gray-100">{check.data.email}</strong>
            </>
          ) : undefined
        }
      />
      <form onSubmit={onSubmit} noValidate className="space-y-5">
        <PasswordField
          label="New password"
          name="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => {
            setPassword(e.target.value);
            setError(undefined);
          }}
          error={error}
          hint={`At least ${PASSWORD_MIN_LENGTH} characters.`}
          required
        />
        <Button type="submit" size="lg" className="w-full" loading={mutation.isPending}>
          Reset password
        </Button>
      </form>
    </>
  );
}
