import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/Button';
import { TextField } from '@/components/Field';
import { ApiError } from '@/lib/api';
import { MESSAGES } from '@/lib/constants';
import { emailSchema, fieldErrors, sendPasswordResetEmail } from '../api';
import { AuthHeading, Notice } from '@/components/auth/AuthLayout';

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const mutation = useMutation({
    mutationFn: sendPasswordResetEmail,
    onSuccess: (_, address) => setSentTo(address),
    onError: (err) =>
      setError(err instanceof ApiError && err.status < 500 ? err.message : MESSAGES.passwordResetRequestFailed),
  });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = emailSchema.safeParse({ email });
    if (!parsed.success) {
      setError(fieldErrors<'email'>(parsed.error).email);
      return;
    }
    setError(undefined);
    mutation.mutate(parsed.data.email);
  };

  if (sentTo) {
    return (
      <>
        <AuthHeading title="Check your email" />
        <Notice tone="success">
          If an account exists for <strong>{sentTo}</strong>, we have sent a link to reset your password.
        </Notice>
        <p className="mt-6 text-center text-sm">
          <Link to="/app/sign-in" className="font-medium underline-offset-4 hover:underline">
            Back to sign in
          </Link>
        </p>
      </>
    );
  }

  return (
    <>
      <AuthHeading
        title="Reset your password"
        subtitle="Enter the email address of your account and we'll send you a link to reset your password."
      />
      <form onSubmit={onSubmit} noValidate className="space-y-5">
        <TextField
          label="Email"
          type="email"
          name="email"
          autoComplete="email"
          value={email}
          onChange={(e) => {
            setEmail(e.target.value);
            setError(undefined);
          }}
          error={error}
          required
        />
        <Button type="submit" size="lg" className="w-full" loading={mutation.isPending}>
          Send reset link
        </Button>
      </form>
      <p className="mt-6 text-center text-sm">
        <Link to="/app/sign-in" className="font-medium underline-offset-4 hover:underline">
          Back to sign in
        </Link>
      </p>
    </>
  );
}
