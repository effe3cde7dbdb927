import { useSyncExternalStore } from 'react';
import { ApiError, client, unwrap } from '@/lib/api';

/**
 * Sensitive-action verification (spec §7 verify-sensitive-action-code, §8). Deleting the account,
 * changing the email or turning 2FA off from a session older than the server's fresh window
 * answers 403 `sensitive_action_verification_required` and mails a 6-digit code. Any call wrapped
 * in withSensitiveVerification then waits while SensitiveActionDialog (mounted once, at the app's
 * root) asks for the code; once the code is verified the user retries the same call with one
 * click, and its result (or failure) becomes the wrapped call's.
 */

/** Said by the code dialog and by the page the mailed link opens (spec §8). */
export const SENSITIVE_TEXT = {
  title: 'Verify it’s you',
  verified: 'Email access verified. Please try the action again.',
} as const;

/** Proves access to the account's email for a sensitive action (spec §7); the session may then retry it. */
export const verifySensitiveActionCode = (code: string) =>
  unwrap(client.POST('/v1/user/verify-sensitive-action-code', { body: { code } }));

export const SENSITIVE_ERROR_TYPE = 'sensitive_action_verification_required';

export function isSensitiveVerificationRequired(err: unknown): err is ApiError {
  return err instanceof ApiError && err.status === 403 && err.errorType === SENSITIVE_ERROR_TYPE;
}

/** A sensitive call waiting for the mailed code. */
export interface PendingSensitiveAction {
  id: number;
  /** The 403 that started it (also what the call fails with if the user gives up). */
  error: ApiError;
  /** Runs the original call again with the same arguments. */
  retry: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

let pending: PendingSensitiveAction | null = null;
let nextId = 1;
let hosts = 0;
const listeners = new Set<() => void>();

function emit() {
  listeners.forEach((l) => l());
}

function subscribe(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** The call waiting for its code, if any (for the dialog). */
export function usePendingSensitiveAction(): PendingSensitiveAction | null {
  return useSyncExternalStore(subscribe, () => pending);
}

/** The dialog announces itself while mounted: without one, the 403 is passed on unchanged. */
export function registerSensitiveHost(): () => void {
  hosts++;
  return () => {
    hosts--;
    if (hosts === 0 && pending) finishSensitiveAction(pending, { error: pending.error });
  };
}

/** Settles a pending call (its value, or an error) and closes the dialog. */
export function finishSensitiveAction(p: PendingSensitiveAction, outcome: { value: unknown } | { error: unknown }) {
  if (pending?.id === p.id) {
    pending = null;
    emit();
  }
  if ('value' in outcome) p.resolve(outcome.value);
  else p.reject(outcome.error);
}

/**
 * Wraps an API call to a sensitive route: when it answers 403 sensitive_action_verification_required,
 * the returned promise stays pending while the user enters the mailed code and retries, then
 * settles with the retry's result. Closing the dialog fails it with the original 403.
 */
export function withSensitiveVerification<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (err) {
      if (!isSensitiveVerificationRequired(err) || hosts === 0) throw err;
      return new Promise<R>((resolve, reject) => {
        // One dialog at a time: an older call still waiting gives up with its own 403.
        if (pending) finishSensitiveAction(pending, { error: pending.error });
        pending = {
          id: nextId++,
          error: err,
          retry: () => fn(...args),
          resolve: resolve as (v: unknown) => void,
          reject,
        };
        emit();
      });
    }
  };
}

/** Test helper: forget any waiting call. */
export function resetSensitiveActions() {
  pending = null;
  emit();
}
