import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { CodeField, PasswordField, TextField } from '@/components/Field';
import { AlertIcon } from '@/components/icons';
import { Spinner } from '@/components/Spinner';
import { sessionQueryKey, useSession, useSignOut } from '@/lib/session';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { MESSAGES } from '@/lib/constants';
import { toast } from '@/lib/toast';
import {
  ACCOUNT_MESSAGES,
  changeEmail,
  deleteAccount,
  emailUpdateError,
  isSixDigitCode,
  newEmailSchema,
  optOutOfUpdates,
  sendEmailChangeCode,
} from '../api';
import { SettingsLayout, SettingsSection } from '@/components/SettingsLayout';
import { ChangePasswordDialog, EditNameDialog } from './ProfileDialogs';

/** Email change: the new address gets a 6-digit code; entering it moves the account (spec §8 messages). */
export function ChangeEmailDialog({
  open,
  onOpenChange,
  currentEmail,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  currentEmail: string;
}) {
  const queryClient = useQueryClient();
  const [step, setStep] = useState<'email' | 'code'>('email');
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();

  const reset = () => {
    setStep('email');
    setEmail('');
    setCode('');
    setError(undefined);
  };
  const close = (next: boolean) => {
    onOpenChange(next);
    if (!next) reset();
  };

  const send = useMutation({
    mutationFn: sendEmailChangeCode,
    onSuccess: () => {
      setStep('code');
      setError(undefined);
      toast.success(ACCOUNT_MESSAGES.codeSent);
    },
    onError: (err) => {
      if (err instanceof ApiError && err.status === 429) return setError(MESSAGES.tooManyAttempts);
      setError(err instanceof ApiError && err.status < 500 ? err.message : httpErrorMessage(err));
    },
  });
  const change = useMutation({
    mutationFn: changeEmail,
    onSuccess: async (res) => {
      toast.success(res.message || ACCOUNT_MESSAGES.emailUpdated);
      close(false);
      await queryClient.invalidateQueries({ queryKey: sessionQueryKey });
    },
    onError: (err) => setError(emailUpdateError(err)),
  });

  const submitEmail = (e: FormEvent) => {
    e.preventDefault();
    const parsed = newEmailSchema.safeParse(email);
    if (!parsed.success) return setError(parsed.error.issues[0]?.message);
    if (parsed.data.toLowerCase() === currentEmail.toLowerCase()) return setError(ACCOUNT_MESSAGES.sameEmail);
    setError(undefined);
    send.mutate(parsed.data);
  };
  const submitCode = (e: FormEvent) => {
    e.preventDefault();
    if (!isSixDigitCode(code)) return setError(ACCOUNT_MESSAGES.codeRequired);
    setError(undefined);
    change.mutate(code.replace(/\s+/g, ''));
  };

  return (
    <Dialog
      open={open}
      onOpenChange={close}
      title="Change email address"
      description={
        step === 'email' ? (
          'We will send a verification code to the new address.'
        ) : (
          <>
            Enter the 6-digit code we sent to <strong>{email.trim()}</strong>.
          </>
        )
      }
    >
      {step === 'email' ? (
        <form onSubmit={submitEmail} noValidate className="space-y-4">
          <TextField
            label="New email"
            type="email"
            name="email"
            autoComplete="email"
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
              setError(undefined);
            }}
            error={error}
            autoFocus
          />
          <div className="flex justify-end gap-2">
            <Button variant="outline" onClick={() => close(false)}>
              Cancel
            </Button>
            <Button type="submit" loading={send.isPending}>
              Send code
            </Button>
          </div>
        </form>
      ) : (
        <form onSubmit={submitCode} noValidate className="space-y-4">
          <CodeField
            label="Verification code"
            name="verification_code"
            value={code}
            onChange={(e) => {
              setCode(e.target.value);
              setError(undefined);
            }}
            error={error}
            autoFocus
          />
          <div className="flex flex-wrap items-center justify-between gap-2">
            <div className="flex gap-3 text-sm">
              <button
                type="button"
                className="cursor-pointer text-gray-600 underline-offset-4 hover:underline disabled:opacity-50 dark:text-gray-400"
                disabled={send.isPending}
                onClick={() => send.mutate(email.trim())}
              >
                Resend code
              </button>
              <button
                type="button"
                className="cursor-pointer text-gray-600 underline-offset-4 hover:underline dark:text-gray-400"
                onClick={() => {
                  setStep('email');
                  setCode('');
                  setError(undefined);
                }}
              >
                Use another address
              </button>
            </div>
            <Button type="submit" loading={change.isPending}>
              Change email
            </Button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

/** Account deletion: a clear warning, then the password (or, without one, a mailed code). */
export function DeleteAccountDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const signOut = useSignOut();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | undefined>();
  const close = (next: boolean) => {
    onOpenChange(next);
    if (!next) {
      setPassword('');
      setError(undefined);
    }
  };
  const remove = useMutation({
    mutationFn: deleteAccount,
    onSuccess: () => {
      toast.success(ACCOUNT_MESSAGES.accountDeleted);
      close(false);
      signOut();
    },
    onError: (err) => {
      if (err instanceof ApiError && err.status === 429) return setError(MESSAGES.tooManyAttempts);
      if (err instanceof ApiError && err.status < 500) return setError(err.message);
      toast.error(httpErrorMessage(err));
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // No password (single sign-on accounts have none): the server asks for a mailed code instead.
    setError(undefined);
    remove.mutate(password);
  };
  return (
    <Dialog open={open} onOpenChange={close} title="Delete your account?">
      <form onSubmit={submit} noValidate className="space-y-4">
        <div
          role="alert"
          className="flex gap-2 rounded-lg bg-red-50 p-3 text-sm text-red-900 dark:bg-red-950 dark:text-red-100"
        >
          <AlertIcon size={18} className="mt-0.5 shrink-0" />
          <div className="space-y-1">
            <p className="font-semibold">This cannot be undone.</p>
            <p>
              Your account, sessions, API keys and two-factor settings are deleted. Workspaces where you are the only
              member are deleted with their history, voices and audio. In shared workspaces your history stays, without
              your name, and ownership passes to another member.
            </p>
          </div>
        </div>
        <PasswordField
          label="Password"
          name="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => {
            setPassword(e.target.value);
            setError(undefined);
          }}
          error={error}
          hint="Enter your password to confirm. Signed in with single sign-on? Leave it empty: we'll email you a code."
          autoFocus
        />
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => close(false)}>
            Cancel
          </Button>
          <Button type="submit" variant="danger" loading={remove.isPending}>
            Delete account
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

function Row({ label, value, action }: { label: string; value: ReactNode; action?: ReactNode }) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-3 py-3 first:pt-0 last:pb-0">
      <div className="min-w-0">
        <dt className="text-sm text-gray-500 dark:text-gray-400">{label}</dt>
        <dd className="mt-0.5 truncate text-sm font-medium">{value}</dd>
      </div>
      {action}
    </div>
  );
}

/** /app/settings: profile (email, name), product-update mail, account deletion. */
export function AccountSettingsPage() {
  const session = useSession();
  const [emailOpen, setEmailOpen] = useState(false);
  const [deleteOpen, setDeleteOpen] = useState(false);
  const [nameOpen, setNameOpen] = useState(false);
  const [passwordOpen, setPasswordOpen] = useState(false);
  const [optedOut, setOptedOut] = useState(false);
  const optOut = useMutation({
    mutationFn: optOutOfUpdates,
    onSuccess: (res) => {
      setOptedOut(true);
      toast.success(res.message || ACCOUNT_MESSAGES.optedOut);
    },
    onError: () => toast.error(ACCOUNT_MESSAGES.optOutFailed),
  });
  const user = session.data;
  if (!user) {
    return (
      <SettingsLayout>
        <Spinner label="Loading" />
      </SettingsLayout>
    );
  }
  return (
    <SettingsLayout>
      <SettingsSection title="Profile">
        <dl className="divide-y divide-gray-100 dark:divide-gray-800">
          <Row
            label="Email"
            value={<span data-testid="profile-email">{user.email}</span>}
            action={
              <Button variant="outline" size="sm" onClick={() => setEmailOpen(true)}>
                Change email
              </Button>
            }
          />
          <Row
            label="Name"
            value={user.first_name || <span className="font-normal text-gray-500">Not set</span>}
            action={
              <Button variant="outline" size="sm" onClick={() => setNameOpen(true)}>
                Edit name
              </Button>
            }
          />
          <Row
            label="Password"
            value={<span aria-hidden="true">••••••••</span>}
            action={
              <Button variant="outline" size="sm" onClick={() => setPasswordOpen(true)}>
                Change password
              </Button>
            }
          />
        </dl>
      </SettingsSection>

      <SettingsSection
        title="Product updates"
        description="Occasional emails about new features and improvements. Account and security emails are always sent."
        actions={
          <Button variant="outline" size="sm" disabled={optedOut} loading={optOut.isPending} onClick={() => optOut.mutate()}>
            {optedOut ? 'Opted out' : 'Opt out of product updates'}
          </Button>
        }
      />

      <SettingsSection
        title="Delete account"
        tone="danger"
        description="Permanently delete your account and the workspaces only you belong to."
        actions={
          <Button variant="danger" size="sm" onClick={() => setDeleteOpen(true)}>
            Delete account
          </Button>
        }
      />

      <ChangeEmailDialog open={emailOpen} onOpenChange={setEmailOpen} currentEmail={user.email} />
      <DeleteAccountDialog open={deleteOpen} onOpenChange={setDeleteOpen} />
      {nameOpen && <EditNameDialog open onOpenChange={setNameOpen} current={user.first_name ?? ''} />}
      <ChangePasswordDialog open={passwordOpen} onOpenChange={setPasswordOpen} />
    </SettingsLayout>
  );
}
