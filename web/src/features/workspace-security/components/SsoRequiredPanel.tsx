import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { Panel, QueryState, Switch } from '@/components/admin';
import { httpErrorMessage } from '@/lib/api';
import { toast } from '@/lib/toast';
import { getSsoSettings, listSsoDomains, setSsoRequired, ssoDomainsQueryKey, ssoSettingsKey } from '../api/ssoDomains';

/**
 * "Require SSO" (admins): people at the workspace's verified domains can then only sign in
 * with SSO. Turning it on asks first, since it can lock out whoever has no working SSO.
 */
export function SsoRequiredPanel() {
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: ssoSettingsKey, queryFn: getSsoSettings });
  const domains = useQuery({ queryKey: ssoDomainsQueryKey, queryFn: listSsoDomains });
  const [confirming, setConfirming] = useState(false);
  const save = useMutation({
    mutationFn: setSsoRequired,
    onSuccess: (next) => {
      queryClient.setQueryData(ssoSettingsKey, next);
      setConfirming(false);
      toast.success(next.sso_required ? 'SSO is now required for your verified domains.' : 'Passwords work again for your verified domains.');
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const verified = (domains.data?.domains ?? []).filter((d) => d.verified).map((d) => d.domain);
  const s = settings.data;
  const list = verified.join(', ');
  return (
    <Panel title="Require SSO">
      {!s ? (
        <QueryState pending={settings.isPending} error={settings.error} />
      ) : (
        <div className="flex flex-wrap items-center justify-between gap-4 px-4 py-4">
          <div className="min-w-0 flex-1">
            <p className="text-sm font-medium" id="sso-required-title">
              Only allow sign-in with SSO
            </p>
            <p className="mt-0.5 text-sm text-gray-600 dark:text-gray-400" id="sso-required-description">
              People with an email at a verified domain cannot use a password: sign-in, sign-up and password reset send them to SSO.{' '}
              {verified.length > 0 ? (
                <span data-testid="sso-required-domains">Applies to {list}.</span>
              ) : (
                <span>No domain is verified yet, so this applies to no one until one is.</span>
              )}
            </p>
          </div>
          <Switch
            label="Require SSO"
            describedBy="sso-required-description"
            checked={s.sso_required}
            disabled={save.isPending}
            onChange={(on) => (on ? setConfirming(true) : save.mutate(false))}
          />
        </div>
      )}
      <ConfirmDialog
        open={confirming}
        onOpenChange={(o) => !o && setConfirming(false)}
        title="Require SSO?"
        description={
          verified.length > 0
            ? `People at ${list} will only be able to sign in through your identity provider — you too, if your email is at one of these domains. Their sessions opened with a password end now. Check that SSO sign-in works before you turn this on.`
            : 'It takes effect for each domain once it is verified.'
        }
        confirmLabel="Require SSO"
        loading={save.isPending}
        onConfirm={() => save.mutate(true)}
      />
    </Panel>
  );
}
