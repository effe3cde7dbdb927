import { useEffect, useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { CodeField } from '@/components/Field';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { MESSAGES } from '@/lib/constants';
import {
  finishSensitiveAction,
  isSensitiveVerificationRequired,
  registerSensitiveHost,
  SENSITIVE_TEXT,
  usePendingSensitiveAction,
  verifySensitiveActionCode,
  type PendingSensitiveAction,
} from '@/lib/sensitive';
import { useSession } from '@/lib/session';

export const SENSITIVE_MESSAGES = {
  title: SENSITIVE_TEXT.title,
  /** Spec §8. */
  verified: SENSITIVE_TEXT.verified,
  codeRequired: 'Please enter the 6-digit code from the email.',
  codeResent: 'We sent a new code to your email.',
} as const;

function errorText(err: unknown): string {
  if (err instanceof ApiError && err.status === 429) return err.message || MESSAGES.tooManyAttempts;
  return httpErrorMessage(err);
}

function SensitiveActionSteps({ action, email }: { action: PendingSensitiveAction; email?: string }) {
  const [stage, setStage] = useState<'code' | 'verified'>('code');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [busy, setBusy] = useState<'verify' | 'resend' | 'retry' | null>(null);
  const [verifiedText, setVerifiedText] = useState<string>(SENSITIVE_MESSAGES.verified);

  /** Runs the original call again: it either goes through now, or asks for (and mails) a new code. */
  const runAgain = async (kind: 'resend' | 'retry') => {
    setBusy(kind);
    setError(undefined);
    setNotice(undefined);
    try {
      const value = await action.retry();
      finishSensitiveAction(action, { value });
    } catch (err) {
      if (isSensitiveVerificationRequired(err)) {
        setStage('code');
        setCode('');
        setNotice(SENSITIVE_MESSAGES.codeResent);
      } else if (kind === 'retry') {
        finishSensitiveAction(action, { error: err }); // the screen that made the call reports it
      } else {
        setError(errorText(err)); // e.g. the server's limit on codes mailed
      }
    } finally {
      setBusy(null);
    }
  };

  const verify = async (e: FormEvent) => {
    e.preventDefault();
    const clean = code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(clean)) return setError(SENSITIVE_MESSAGES.codeRequired);
    setBusy('verify');
    setError(undefined);
    setNotice(undefined);
    try {
      const res = (await verifySensitiveActionCode(clean)) as { message?: string } | undefined;
      setVerifiedText(res?.message || SENSITIVE_MESSAGES.verified);
      setStage('verified');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(null);
    }
  };

  if (stage === 'verified') {
    return (
      <div className="space-y-4">
        <p role="status" className="rounded-lg bg-green-50 p-3 text-sm text-green-900 dark:bg-green-950 dark:text-green-100">
          {verifiedText}
        </p>
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => finishSensitiveAction(action, { error: action.error })}>
            Cancel
          </Button>
          <Button loading={busy === 'retry'} onClick={() => void runAgain('retry')} autoFocus>
            Try again
          </Button>
        </div>
      </div>
    );
  }
  return (
    <form onSubmit={(e) => void verify(e)} noValidate className="space-y-4" aria-label="Verify it’s you">
      <CodeField
        label="Verification code"
        name="sensitive_action_code"
        value={code}
        onChange={(e) => {
          setCode(e.target.value);
          setError(undefined);
        }}
        error={error}
        hint={email ? `Sent to ${email}. It is valid for 10 minutes.` : 'It is valid for 10 minutes.'}
        autoFocus
      />
      {notice && (
        <p role="status" className="text-sm text-gray-700 dark:text-gray-300">
          {notice}
        </p>
      )}
      <div className="flex flex-wrap items-center justify-between gap-2">
        <button
          type="button"
          className="cursor-pointer text-sm text-gray-600 underline-offset-4 hover:underline focus-visible:underline disabled:cursor-not-allowed disabled:opacity-50 dark:text-gray-400"
          disabled={busy !== null}
          aria-busy={busy === 'resend' || undefined}
          onClick={() => void runAgain('resend')}
        >
          Send a new code
        </button>
        <div className="flex gap-2">
          <Button variant="outline" onClick={() => finishSensitiveAction(action, { error: action.error })}>
            Cancel
          </Button>
          <Button type="submit" loading={busy === 'verify'} disabled={busy !== null && busy !== 'verify'}>
            Verify
          </Button>
        </div>
      </div>
    </form>
  );
}

/**
 * The one dialog for every sensitive call (mounted once at the app's root): asks for the code
 * the server mailed, verifies it (POST /v1/user/verify-sensitive-action-code), shows the spec's
 * §8 text and retries the call with one click.
 */
export function SensitiveActionDialog() {
  const action = usePendingSensitiveAction();
  const session = useSession();
  useEffect(() => registerSensitiveHost(), []);
  const email = session.data?.email;
  return (
    <Dialog
      open={action !== null}
      onOpenChange={(open) => {
        if (!open && action) finishSensitiveAction(action, { error: action.error });
      }}
      title={SENSITIVE_MESSAGES.title}
      description="For your security, we emailed you a 6-digit code. Enter it to confirm it’s you, then try the action again."
    >
      {action && <SensitiveActionSteps key={action.id} action={action} email={email} />}
    </Dialog>
  );
}
