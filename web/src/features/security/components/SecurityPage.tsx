import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { Button } from '@/components/Button';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { Dialog } from '@/components/Dialog';
import { ShieldIcon } from '@/components/icons';
import { Spinner } from '@/components/Spinner';
import { SettingsLayout, SettingsSection } from '@/components/SettingsLayout';
import { useSession, useSignOut } from '@/lib/session';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { formatDate } from '@/lib/format';
import { toast } from '@/lib/toast';
import {
  ADD_2FA_DIALOG,
  describeUserAgent,
  disableTotp,
  getMfaStatus,
  listSessions,
  mfaQueryKey,
  regenerateBackupCodes,
  revokeOtherSessions,
  revokeSession,
  SECURITY_MESSAGES,
  sessionsQueryKey,
  signOutEverywhere,
  type SecuritySession,
} from '../api';
import { BackupCodes } from './BackupCodes';
import { CodeProofDialog, type CodeProof } from './CodeProofDialog';
import { TwoFactorSetupDialog } from './TwoFactorSetupDialog';

function errorText(err: unknown): string {
  return err instanceof ApiError && err.status < 500 ? err.message : httpErrorMessage(err);
}

function TwoFactorSection({ email, enrollmentRequired }: { email?: string; enrollmentRequired: boolean }) {
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const setupOpen = params.get('dialog') === ADD_2FA_DIALOG;
  const setSetupOpen = (open: boolean) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (open) next.set('dialog', ADD_2FA_DIALOG);
        else next.delete('dialog');
        return next;
      },
      { replace: !open },
    );
  const [disableOpen, setDisableOpen] = useState(false);
  const [regenOpen, setRegenOpen] = useState(false);
  const [newCodes, setNewCodes] = useState<string[] | null>(null);
  const [proofError, setProofError] = useState<string | undefined>();

  const status = useQuery({ queryKey: mfaQueryKey, queryFn: getMfaStatus });

  const disable = useMutation({
    mutationFn: (proof: CodeProof) => disableTotp(proof),
    onSuccess: () => {
      setDisableOpen(false);
      toast.success(SECURITY_MESSAGES.mfaDisabled);
      void queryClient.invalidateQueries({ queryKey: mfaQueryKey });
      void queryClient.invalidateQueries({ queryKey: ['session'] });
    },
    onError: (err) => setProofError(errorText(err)),
  });
  const regen = useMutation({
    mutationFn: (proof: CodeProof) => regenerateBackupCodes('code' in proof ? proof.code : ''),
    onSuccess: (res) => {
      setRegenOpen(false);
      setNewCodes(res.backup_codes);
      void queryClient.invalidateQueries({ queryKey: mfaQueryKey });
    },
    onError: (err) => setProofError(errorText(err)),
  });

  const on = status.data?.totp_enabled === true;
  return (
    <SettingsSection
      title="Two-factor authentication"
      description="Ask for a code from an authenticator app, as well as your password, when you sign in."
      actions={
        status.isSuccess &&
        (on ? (
          <>
            <Button
              variant="outline"
              size="sm"
              onClick={() => {
                setProofError(undefined);
                setRegenOpen(true);
              }}
            >
              Regenerate backup codes
            </Button>
            <Button
              variant="outline"
              size="sm"
              className="text-red-600 dark:text-red-400"
              onClick={() => {
                setProofError(undefined);
                setDisableOpen(true);
              }}
            >
              Disable 2FA
            </Button>
          </>
        ) : (
          <Button size="sm" onClick={() => setSetupOpen(true)}>
            <ShieldIcon size={15} /> Add 2FA
          </Button>
        ))
      }
    >
      {(enrollmentRequired || status.data?.mfa_required_for_users) && !on && (
        <p
          role="alert"
          className="mb-4 rounded-lg bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100"
        >
          {SECURITY_MESSAGES.enrollmentRequired}
        </p>
      )}
      {status.isPending && (
        <p className="flex items-center gap-2 text-sm text-gray-500">
          <Spinner /> Loading…
        </p>
      )}
      {status.isError && (
        <p role="alert" className="text-sm text-red-600">
          {httpErrorMessage(status.error)}
        </p>
      )}
      {status.isSuccess && (
        <dl className="grid gap-3 text-sm sm:grid-cols-2">
          <div>
            <dt className="text-gray-500 dark:text-gray-400">Status</dt>
            <dd className="mt-0.5 font-medium" data-testid="mfa-status">
              {on
                ? `On${status.data.totp_enabled_at_unix ? ` since ${formatDate(status.data.totp_enabled_at_unix)}` : ''}`
                : 'Off'}
            </dd>
          </div>
          {on && (
            <div>
              <dt className="text-gray-500 dark:text-gray-400">Backup codes left</dt>
              <dd className="mt-0.5 font-medium">{status.data.backup_codes_remaining} of 10</dd>
            </div>
          )}
        </dl>
      )}

      <TwoFactorSetupDialog open={setupOpen} onOpenChange={setSetupOpen} email={email} />
      <CodeProofDialog
        open={disableOpen}
        onOpenChange={setDisableOpen}
        title="Disable two-factor authentication?"
        description="Your account will be protected by your password only, and your backup codes will stop working. Enter a code to confirm."
        confirmLabel="Disable 2FA"
        danger
        allowBackupCode
        loading={disable.isPending}
        error={proofError}
        onSubmit={(proof) => {
          setProofError(undefined);
          disable.mutate(proof);
        }}
      />
      <CodeProofDialog
        open={regenOpen}
        onOpenChange={setRegenOpen}
        title="Regenerate backup codes?"
        description="You get 10 new backup codes and the old ones stop working. Enter a code from your authenticator app to confirm."
        confirmLabel="Regenerate"
        loading={regen.isPending}
        error={proofError}
        onSubmit={(proof) => {
          setProofError(undefined);
          regen.mutate(proof);
        }}
      />
      <Dialog
        open={newCodes !== null}
        onOpenChange={(open) => !open && setNewCodes(null)}
        title="Your new backup codes"
      >
        {newCodes && <BackupCodes codes={newCodes} email={email} />}
        <div className="mt-6 flex justify-end">
          <Button onClick={() => setNewCodes(null)}>Done</Button>
        </div>
      </Dialog>
    </SettingsSection>
  );
}

function SessionsSection() {
  const queryClient = useQueryClient();
  const signOut = useSignOut();
  const [confirm, setConfirm] = useState<null | 'others' | 'everywhere' | SecuritySession>(null);
  const sessions = useQuery({ queryKey: sessionsQueryKey, queryFn: listSessions });

  const revokeOne = useMutation({
    mutationFn: (s: SecuritySession) => revokeSession(s.session_id),
    onSuccess: (_, s) => {
      setConfirm(null);
      if (s.current) return signOut();
      toast.success(SECURITY_MESSAGES.sessionRevoked);
      void queryClient.invalidateQueries({ queryKey: sessionsQueryKey });
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const revokeOthers = useMutation({
    mutationFn: revokeOtherSessions,
    onSuccess: (res) => {
      setConfirm(null);
      toast.success(
        res.revoked === 1 ? 'Signed out 1 other session.' : `Signed out ${res.revoked} other sessions.`,
      );
      void queryClient.invalidateQueries({ queryKey: sessionsQueryKey });
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const everywhere = useMutation({
    mutationFn: signOutEverywhere,
    onSuccess: () => {
      setConfirm(null);
      signOut();
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });

  // This device first, then the most recently used.
  const list = [...(sessions.data?.sessions ?? [])].sort((a, b) => Number(b.current) - Number(a.current));
  const others = list.filter((s) => !s.current).length;
  return (
    <SettingsSection
      title="Sessions"
      description="Where you are signed in. Sign out any session you don’t recognise."
      actions={
        <>
          <Button variant="outline" size="sm" disabled={others === 0} onClick={() => setConfirm('others')}>
            Sign out other sessions
          </Button>
          <Button variant="outline" size="sm" className="text-red-600 dark:text-red-400" onClick={() => setConfirm('everywhere')}>
            Sign out everywhere
          </Button>
        </>
      }
    >
      {sessions.isPending && (
        <p className="flex items-center gap-2 text-sm text-gray-500">
          <Spinner /> Loading sessions…
        </p>
      )}
      {sessions.isError && (
        <p role="alert" className="text-sm text-red-600">
          {httpErrorMessage(sessions.error)}
        </p>
      )}
      {list.length > 0 && (
        <ul aria-label="Sessions" className="divide-y divide-gray-100 rounded-xl border border-gray-200 dark:divide-gray-800 dark:border-gray-800">
          {list.map((s) => (
            <li key={s.session_id} className="flex flex-wrap items-center gap-3 px-4 py-3 text-sm" data-current={s.current || undefined}>
              <div className="min-w-0 flex-1">
                <p className="flex items-center gap-2 font-medium">
                  <span className="truncate">{describeUserAgent(s.user_agent)}</span>
                  {s.current && (
                    <span className="inline-flex items-center rounded-md bg-emerald-100 px-1.5 py-0.5 text-xs font-medium text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200">
                      This device
                    </span>
                  )}
                </p>
                <p className="mt-0.5 text-xs text-gray-500 dark:text-gray-400">
                  {s.ip_address || 'Unknown address'} · Signed in {formatDate(s.created_at_unix)} · Last active{' '}
                  {formatDate(s.last_seen_unix)}
                </p>
              </div>
              <Button
                variant="ghost"
                size="sm"
                aria-label={s.current ? 'Sign out this device' : `Sign out ${describeUserAgent(s.user_agent)} (${s.ip_address})`}
                onClick={() => setConfirm(s)}
              >
                Sign out
              </Button>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={confirm !== null}
        onOpenChange={(open) => !open && setConfirm(null)}
        title={
          confirm === 'others'
            ? 'Sign out other sessions?'
            : confirm === 'everywhere'
              ? 'Sign out everywhere?'
              : confirm?.current
                ? 'Sign out this device?'
                : 'Sign out this session?'
        }
        description={
          confirm === 'others'
            ? 'Every other browser and device signed in to your account is signed out. This one stays signed in.'
            : confirm === 'everywhere'
              ? 'Every session is signed out, this one included. You will need to sign in again.'
              : 'That browser will need to sign in again.'
        }
        confirmLabel={confirm === 'everywhere' ? 'Sign out everywhere' : 'Sign out'}
        loading={revokeOne.isPending || revokeOthers.isPending || everywhere.isPending}
        onConfirm={() => {
          if (confirm === 'others') revokeOthers.mutate();
          else if (confirm === 'everywhere') everywhere.mutate();
          else if (confirm) revokeOne.mutate(confirm);
        }}
      />
    </SettingsSection>
  );
}

/** /app/settings/security: two-factor authentication and sessions. */
export function SecurityPage() {
  const session = useSession();
  const s = session.data as (typeof session.data & { mfa_enrollment_required?: boolean }) | null | undefined;
  return (
    <SettingsLayout>
      <TwoFactorSection email={s?.email} enrollmentRequired={s?.mfa_enrollment_required === true} />
      {!s?.mfa_enrollment_required && <SessionsSection />}
    </SettingsLayout>
  );
}
