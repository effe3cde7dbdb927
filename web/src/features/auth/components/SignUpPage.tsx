import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Button } from '@/components/Button';
import { cn } from '@/components/cn';
import { PasswordField, TextField } from '@/components/Field';
import { MailIcon } from '@/components/icons';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { legalLinks, useCapabilities } from '@/lib/capabilities';
import { MESSAGES } from '@/lib/constants';
import { toast } from '@/lib/toast';
import { clearStoredInviteCode, getStoredInviteCode } from '@/lib/invite-code';
import {
  fieldErrors,
  isDevMailboxAvailable,
  PASSWORD_MIN_LENGTH,
  sendVerificationEmail,
  signUp,
  signUpSchema,
  type FieldErrors,
} from '../api';
import { captureReferral, clearStoredReferral, getStoredReferral } from '@/lib/referral';
import { AuthHeading, Notice } from '@/components/auth/AuthLayout';

type Field = 'email' | 'password' | 'terms';

/** Sign-up form (spec §2, §5): email, password, terms checkbox (required). */
export function SignUpForm({
  onSignedUp,
  inviteCode,
  initialEmail = '',
}: {
  onSignedUp: (email: string) => void;
  /** A workspace invitation to accept on sign-up (spec: stored under workspaceInviteCode). */
  inviteCode?: string | null;
  initialEmail?: string;
}) {
  const [email, setEmail] = useState(initialEmail);
  const [password, setPassword] = useState('');
  const [terms, setTerms] = useState(false);
  const [errors, setErrors] = useState<FieldErrors<Field>>({});
  const tooltipId = useId();
  const termsId = useId();
  const legal = legalLinks(useCapabilities('public').data);

  const mutation = useMutation({
    mutationFn: signUp,
    onSuccess: (_, vars) => {
      if (vars.invite_code) clearStoredInviteCode(); // joined with the account
      if (vars.referral_code) clearStoredReferral(); // kept on the account
      onSignedUp(vars.email);
    },
    onError: (err) => {
      if (err instanceof ApiError && err.status < 500) {
        const loc = (err.payload as { detail?: Array<{ loc?: string[] }> })?.detail;
        const field = Array.isArray(loc) ? loc[0]?.loc?.[1] : undefined;
        if (field === 'password') return setErrors({ password: err.message });
        if (field === 'terms_accepted') return setErrors({ terms: MESSAGES.termsRequired });
        if (field === 'referral_code') {
          // The server refused the kept code: forget it so the next try signs up without it.
          clearStoredReferral();
          return toast.error(`${err.message} Please try again.`);
        }
        return setErrors({ email: err.message });
      }
      toast.error(httpErrorMessage(err));
    },
  });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = signUpSchema.safeParse({ email, password, terms });
    if (!parsed.success) {
      setErrors(fieldErrors<Field>(parsed.error));
      return;
    }
    setErrors({});
    captureReferral(window.location.search); // the link that opened this page, if it carries one
    const referral = getStoredReferral();
    mutation.mutate({
      email: parsed.data.email,
      password: parsed.data.password,
      terms_accepted: true,
      ...(inviteCode ? { invite_code: inviteCode } : {}),
      ...(referral ? { referral_code: referral } : {}),
    });
  };

  return (
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
        autoComplete="new-password"
        value={password}
        onChange={(e) => {
          setPassword(e.target.value);
          setErrors((x) => ({ ...x, password: undefined }));
        }}
        error={errors.password}
        hint={`At least ${PASSWORD_MIN_LENGTH} characters.`}
        required
      />
      <div>
        <div className="flex items-start gap-3">
          <input
            id={termsId}
            type="checkbox"
            checked={terms}
            onChange={(e) => {
              setTerms(e.target.checked);
              setErrors((x) => ({ ...x, terms: undefined }));
            }}
            aria-invalid={errors.terms ? true : undefined}
            aria-describedby={errors.terms ? tooltipId : undefined}
            required
            className={cn(
              'mt-0.5 size-4 shrink-0 cursor-pointer rounded accent-gray-900 dark:accent-white',
              errors.terms && 'outline-2 outline-offset-2 outline-red-500',
            )}
          />
          <label htmlFor={termsId} className="text-sm text-gray-700 dark:text-gray-300">
            I agree to the <LegalLink href={legal.terms_url}>Terms of Service</LegalLink> and{' '}
            <LegalLink href={legal.privacy_url}>Privacy Policy</LegalLink>
          </label>
        </div>
        {errors.terms && (
          <div
            role="tooltip"
            id={tooltipId}
            // Below the box, pointing up at it, and in the flow of the form: it pushes the button
            // down instead of covering it or the password's error above.
            className="relative mt-3 w-fit max-w-xs rounded-lg bg-red-600 px-3 py-2 text-xs font-medium text-white shadow-lg"
          >
            {errors.terms}
            <span className="absolute bottom-full left-1 size-0 border-x-6 border-b-6 border-x-transparent border-b-red-600" />
          </div>
        )}
      </div>
      <Button type="submit" size="lg" className="w-full" loading={mutation.isPending}>
        Sign up
      </Button>
    </form>
  );
}

/**
 * A link inside the terms checkbox's label: opens in a new tab, so the half-filled form stays;
 * a click on it reads the page and leaves the box as it was.
 */
function LegalLink({ href, children }: { href: string; children: string }) {
  return (
    <a
      href={href}
      target="_blank"
      rel="noopener noreferrer"
      className="font-medium text-gray-900 underline underline-offset-2 hover:no-underline dark:text-white"
    >
      {children}
    </a>
  );
}

/** After sign-up: check your email; link to the dev mailbox when it exists. */
export function CheckEmail({ email }: { email: string }) {
  const mailbox = useQuery({ queryKey: ['auth', 'dev-mailbox-available'], queryFn: isDevMailboxAvailable, staleTime: 60_000 });
  const resend = useMutation({
    mutationFn: () => sendVerificationEmail(email),
    onSuccess: () => toast.success('Verification email sent. Please check your inbox.'),
    onError: (err) =>
      toast.error(err instanceof ApiError && err.status < 500 ? err.message : MESSAGES.verificationEmailFailed),
  });
  return (
    <div>
      <div className="mb-6 flex size-12 items-center justify-center rounded-full bg-gray-100 dark:bg-gray-800">
        <MailIcon size={22} />
      </div>
      <AuthHeading
        title="Check your email"
        subtitle={
          <>
            We sent a verification link to <strong className="text-gray-900 dark:text-gray-100">{email}</strong>.
            Please check your email and click the link to verify your account.
          </>
        }
      />
      {mailbox.data && (
        <Notice>
          No mail server is configured, so messages go to the{' '}
          <Link to="/app/dev/mailbox" className="font-medium underline">
            development mailbox
          </Link>
          .
        </Notice>
      )}
      <div className="mt-6 flex flex-col gap-3">
        <Button variant="outline" onClick={() => resend.mutate()} loading={resend.isPending}>
          Resend verification email
        </Button>
        <Link to="/app/sign-in" className="text-center text-sm font-medium underline-offset-4 hover:underline">
          Back to sign in
        </Link>
      </div>
    </div>
  );
}

export function SignUpPage() {
  const [params] = useSearchParams();
  const [signedUpEmail, setSignedUpEmail] = useState<string | null>(null);
  const [inviteCode] = useState(getStoredInviteCode);
  if (signedUpEmail) return <CheckEmail email={signedUpEmail} />;
  return (
    <>
      <AuthHeading
        title="Create an account"
        subtitle={
          <>
            Already have an account?{' '}
            <Link to="/app/sign-in" className="font-medium text-gray-900 underline-offset-4 hover:underline dark:text-white">
              Sign in
            </Link>
          </>
        }
      />
      {inviteCode && (
        <div className="mb-6">
          <Notice tone="info">You are signing up to accept a workspace invitation.</Notice>
        </div>
      )}
      <SignUpForm onSignedUp={setSignedUpEmail} inviteCode={inviteCode} initialEmail={params.get('email') ?? ''} />
    </>
  );
}
