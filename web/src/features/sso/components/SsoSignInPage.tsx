import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Button } from '@/components/Button';
import { TextField } from '@/components/Field';
import { AuthHeading, Notice } from '@/components/auth/AuthLayout';
import { emailSchema } from '@/lib/validation';
import { getStoredInviteCode } from '@/lib/invite-code';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { browser, findSsoProvider, SSO_MESSAGES, ssoErrorText, ssoStartUrl } from '../api';

/**
 * /app/sso: single sign-on. The email's domain picks the workspace's identity
 * provider (GET /v1/workspace/find-sso-provider); the browser then goes to
 * /api/sso/start, which sends it on to the provider. A failed callback comes
 * back here with ?error=.
 */
export function SsoSignInPage() {
  const [params] = useSearchParams();
  const redirect = params.get('redirect');
  const callbackError = ssoErrorText(params.get('error'));
  const [email, setEmail] = useState(params.get('email') ?? '');
  const [error, setError] = useState<string | undefined>();
  const [formError, setFormError] = useState<string | null>(null);

  const find = useMutation({
    mutationFn: (address: string) => findSsoProvider(address, getStoredInviteCode()),
    onSuccess: (_, address) => browser.assign(ssoStartUrl(address, redirect)),
    onError: (err) => {
      if (err instanceof ApiError && err.status === 404) return setFormError(SSO_MESSAGES.notFound);
      if (err instanceof ApiError && err.status === 422) return setError(err.message);
      setFormError(httpErrorMessage(err));
    },
  });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setFormError(null);
    const parsed = emailSchema.safeParse({ email });
    if (!parsed.success) return setError(parsed.error.issues[0]?.message);
    setError(undefined);
    find.mutate(parsed.data.email);
  };

  const signInLink = `/app/sign-in${redirect ? `?redirect=${encodeURIComponent(redirect)}` : ''}`;
  return (
    <>
      <AuthHeading
        title="Sign in with SSO"
        subtitle="Use your organisation's identity provider. Enter your work email to continue."
      />
      {(formError ?? callbackError) && (
        <div className="mb-6">
          <Notice tone="error">{formError ?? callbackError}</Notice>
        </div>
      )}
      <form onSubmit={onSubmit} noValidate className="space-y-5">
        <TextField
          label="Work email"
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
          autoFocus
        />
        <Button type="submit" size="lg" className="w-full" loading={find.isPending || find.isSuccess}>
          Continue with SSO
        </Button>
      </form>
      <p className="mt-6 text-center text-sm text-gray-600 dark:text-gray-400">
        <Link to={signInLink} className="font-medium text-gray-900 underline-offset-4 hover:underline dark:text-white">
          Sign in with a password
        </Link>
      </p>
    </>
  );
}
