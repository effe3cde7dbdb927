import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { Dialog } from '@/components/Dialog';
import { FieldError, Select, TextArea, TextField } from '@/components/Field';
import { PlusIcon, TrashIcon } from '@/components/icons';
import { Tooltip } from '@/components/Tooltip';
import { copyText, Panel, Pill, QueryState, Switch } from '@/components/admin';
import { Page } from '@/components/Page';
import { useWorkspaceRole } from '@/lib/access';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { formatDate } from '@/lib/format';
import { toast } from '@/lib/toast';
import { SsoDomainsPanel } from './SsoDomainsPanel';
import { SsoRequiredPanel } from './SsoRequiredPanel';
import {
  createProvider,
  deleteProvider,
  getSSOSettings,
  getWorkspaceSettings,
  listProviders,
  MESSAGES,
  parseDomains,
  patchWorkspaceSettings,
  providersQueryKey,
  setAutoProvisioning,
  setTrainingOptOut,
  ssoSettingsQueryKey,
  TIMEOUT_OPTIONS,
  timeoutLabel,
  updateProvider,
  validateProvider,
  workspaceSettingsQueryKey,
  type SSOProvider,
  type WorkspaceSettings,
} from '../api';

/** GET /api/workspace/settings is admin-only: editors don't ask (their opt-out toggle is locked). */
function useWorkspaceSettings(enabled = true) {
  return useQuery({ queryKey: workspaceSettingsQueryKey, queryFn: getWorkspaceSettings, retry: false, enabled });
}

function Row({ title, description, control }: { title: string; description: React.ReactNode; control: React.ReactNode }) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-4 px-4 py-4">
      <div className="min-w-0 flex-1">
        <p className="text-sm font-medium">{title}</p>
        <div className="mt-0.5 text-sm text-gray-600 dark:text-gray-400">{description}</div>
      </div>
      <div className="shrink-0">{control}</div>
    </div>
  );
}

/** MFA requirement and session inactivity timeout (admins). */
function SignInPolicyPanel() {
  const queryClient = useQueryClient();
  const settings = useWorkspaceSettings();
  const patch = useMutation({
    mutationFn: patchWorkspaceSettings,
    onSuccess: (next) => {
      queryClient.setQueryData(workspaceSettingsQueryKey, next);
      toast.success('Workspace security settings updated.');
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const s = settings.data;
  return (
    <Panel title="Sign-in policy" description="Applies to every member of this workspace.">
      {!s ? (
        <QueryState pending={settings.isPending} error={settings.error} />
      ) : (
        <div className="divide-y divide-gray-100 dark:divide-gray-800">
          <Row
            title="Require two-factor authentication"
            description="Members without an authenticator app set up are asked to add one before they can continue."
            control={
              <Switch
                label="Require two-factor authentication"
                checked={s.mfa_required_for_users}
                disabled={patch.isPending}
                onChange={(on) => patch.mutate({ mfa_required_for_users: on })}
              />
            }
          />
          <Row
            title="Sign out after inactivity"
            description="Members are signed out when they have not used Timbre for this long."
            control={
              <Select
                aria-label="Session inactivity timeout"
                value={s.session_inactivity_timeout === null ? '' : String(s.session_inactivity_timeout)}
                disabled={patch.isPending}
                onChange={(e) => patch.mutate({ session_inactivity_timeout: e.target.value === '' ? null : Number(e.target.value) })}
                className="w-40"
              >
                {TIMEOUT_OPTIONS.map((o) => (
                  <option key={o.label} value={o.value === null ? '' : String(o.value)}>
                    {o.label}
                  </option>
                ))}
                {s.session_inactivity_timeout !== null && !TIMEOUT_OPTIONS.some((o) => o.value === s.session_inactivity_timeout) && (
                  <option value={String(s.session_inactivity_timeout)}>{timeoutLabel(s.session_inactivity_timeout)}</option>
                )}
              </Select>
            }
          />
        </div>
      )}
    </Panel>
  );
}

/** Training opt-out (spec §5, §8): confirm enabled only when the toggle differs; admins only. */
export function TrainingOptOutPanel({ isAdmin }: { isAdmin: boolean }) {
  const queryClient = useQueryClient();
  const settings = useWorkspaceSettings(isAdmin);
  const current = settings.data?.training_opt_out ?? false;
  const [value, setValue] = useState(current);
  useEffect(() => setValue(current), [current]);
  const save = useMutation({
    mutationFn: setTrainingOptOut,
    onSuccess: (res) => {
      queryClient.setQueryData<WorkspaceSettings>(workspaceSettingsQueryKey, (old) =>
        old ? { ...old, training_opt_out: res.training_opt_out } : old,
      );
      if (!settings.data) setValue(res.training_opt_out);
      toast.success(MESSAGES.optOutUpdated);
      void queryClient.invalidateQueries({ queryKey: workspaceSettingsQueryKey });
    },
    onError: () => toast.error(MESSAGES.optOutFailed),
  });
  const toggle = (
    <Switch
      id="training-opt-out"
      label="Opt out of model training"
      checked={value}
      disabled={!isAdmin || save.isPending}
      onChange={setValue}
    />
  );
  return (
    <Panel title="Model training" description="Whether content created in this workspace may be used to improve models.">
      <Row
        title="Opt out of model training"
        description={
          isAdmin
            ? 'When on, audio and text from this workspace are never used for training.'
            : 'When on, audio and text from this workspace are never used for training. Ask a workspace admin for the current setting.'
        }
        control={
          <div className="flex items-center gap-3">
            {isAdmin ? (
              toggle
            ) : (
              <Tooltip content={MESSAGES.adminOnly}>
                <span tabIndex={0} aria-label={MESSAGES.adminOnly} data-testid="opt-out-locked" className="inline-flex rounded-full">
                  {toggle}
                </span>
              </Tooltip>
            )}
            <Button size="sm" disabled={!isAdmin || value === current} loading={save.isPending} onClick={() => save.mutate(value)}>
              Confirm
            </Button>
          </div>
        }
      />
    </Panel>
  );
}

function CopyRow({ label, value }: { label: string; value: string }) {
  return (
    <div className="grid gap-1 px-4 py-2.5 sm:grid-cols-[12rem_1fr_auto] sm:items-center sm:gap-3">
      <dt className="text-sm text-gray-600 dark:text-gray-400">{label}</dt>
      <dd className="min-w-0 font-mono text-xs break-all">{value}</dd>
      <Button size="sm" variant="ghost" aria-label={`Copy ${label}`} onClick={() => void copyText(value, label, toast)}>
        Copy
      </Button>
    </div>
  );
}

type ProviderForm = {
  name: string;
  domains: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  metadataXml: string;
  entityId: string;
  ssoUrl: string;
  certificate: string;
  enabled: boolean;
};

function formOf(p: SSOProvider | null): ProviderForm {
  return {
    name: p?.name ?? '',
    domains: (p?.domains ?? []).join(', '),
    issuer: p?.issuer ?? '',
    clientId: p?.client_id ?? '',
    clientSecret: '',
    scopes: p?.scopes ?? '',
    metadataXml: '',
    entityId: p?.identity_provider_entity_id ?? '',
    ssoUrl: p?.sso_url ?? '',
    certificate: p?.certificate ?? '',
    enabled: p?.enabled ?? true,
  };
}

function ProviderDialog({ open, onOpenChange, provider }: { open: boolean; onOpenChange: (o: boolean) => void; provider: SSOProvider | null }) {
  const queryClient = useQueryClient();
  const creating = provider === null;
  const [type, setType] = useState<'oidc' | 'saml'>(provider?.type ?? 'oidc');
  const [f, setF] = useState<ProviderForm>(formOf(provider));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [pending, setPending] = useState(false);
  useEffect(() => {
    if (!open) return;
    setType(provider?.type ?? 'oidc');
    setF(formOf(provider));
    setErrors({});
  }, [open, provider]);
  const set = (k: keyof ProviderForm) => (e: { target: { value: string } }) => {
    setF((x) => ({ ...x, [k]: e.target.value }));
    setErrors((x) => ({ ...x, [k]: '' }));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateProvider(type, f, creating, provider?.has_client_secret === true);
    setErrors(found);
    if (Object.keys(found).length) return;
    const common = { name: f.name.trim(), domains: parseDomains(f.domains), enabled: f.enabled };
    const oidc = { issuer: f.issuer.trim(), client_id: f.clientId.trim(), ...(f.clientSecret ? { client_secret: f.clientSecret } : {}), ...(f.scopes.trim() ? { scopes: f.scopes.trim() } : {}) };
    const saml = f.metadataXml.trim()
      ? { metadata_xml: f.metadataXml.trim() }
      : { identity_provider_entity_id: f.entityId.trim(), sso_url: f.ssoUrl.trim(), certificate: f.certificate.trim() };
    setPending(true);
    try {
      if (creating) await createProvider({ type, ...common, ...(type === 'oidc' ? oidc : saml) });
      else await updateProvider(provider.provider_id, { ...common, ...(type === 'oidc' ? oidc : saml) });
      toast.success(creating ? 'Identity provider added.' : 'Identity provider updated.');
      void queryClient.invalidateQueries({ queryKey: providersQueryKey });
      onOpenChange(false);
    } catch (x) {
      if (x instanceof ApiError && x.status < 500) setErrors({ form: x.message });
      else toast.error(httpErrorMessage(x));
    } finally {
      setPending(false);
    }
  };

  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={creating ? 'Add identity provider' : `Edit ${provider?.name}`} className="max-w-xl">
      <form onSubmit={(e) => void submit(e)} noValidate className="space-y-4">
        {creating && (
          <div role="radiogroup" aria-label="Protocol" className="flex gap-4 text-sm">
            {(['oidc', 'saml'] as const).map((t) => (
              <label key={t} className="flex cursor-pointer items-center gap-2">
                <input type="radio" name="sso-type" checked={type === t} onChange={() => setType(t)} /> {t === 'oidc' ? 'OpenID Connect' : 'SAML 2.0'}
              </label>
            ))}
          </div>
        )}
        <TextField label="Name" value={f.name} onChange={set('name')} error={errors.name} placeholder="e.g. Okta" autoFocus />
        <TextField label="Email domains" value={f.domains} onChange={set('domains')} error={errors.domains} placeholder="example.com, example.org" hint="People with these email domains sign in through this provider." />
        {type === 'oidc' ? (
          <>
            <TextField label="Issuer URL" value={f.issuer} onChange={set('issuer')} error={errors.issuer} placeholder="https://idp.example.com" />
            <TextField label="Client ID" value={f.clientId} onChange={set('clientId')} error={errors.clientId} />
            <TextField
              label="Client secret"
              type="password"
              autoComplete="new-password"
              value={f.clientSecret}
              onChange={set('clientSecret')}
              error={errors.clientSecret}
              placeholder={provider?.has_client_secret ? 'Unchanged — type to replace' : ''}
            />
            <TextField label="Scopes (optional)" value={f.scopes} onChange={set('scopes')} placeholder="openid email profile" />
          </>
        ) : (
          <>
            <div>
              <label htmlFor="saml-metadata" className="mb-1.5 block text-sm font-medium">
                IdP metadata XML
              </label>
              <TextArea id="saml-metadata" rows={4} value={f.metadataXml} onChange={set('metadataXml')} placeholder="<EntityDescriptor …>" className="font-mono text-xs" />
              <div className="mt-1.5 flex items-center gap-2 text-xs text-gray-500">
                <label className="cursor-pointer underline">
                  Upload a metadata file
                  <input
                    type="file"
                    accept=".xml,application/xml,text/xml,application/samlmetadata+xml"
                    className="sr-only"
                    onChange={(e) => {
                      const file = e.target.files?.[0];
                      if (file) void file.text().then((t) => setF((x) => ({ ...x, metadataXml: t })));
                    }}
                  />
                </label>
                <span>· or fill in the fields below instead.</span>
              </div>
            </div>
            {!f.metadataXml.trim() && (
              <>
                <TextField label="IdP entity ID" value={f.entityId} onChange={set('entityId')} error={errors.entityId} />
                <TextField label="IdP sign-in URL" value={f.ssoUrl} onChange={set('ssoUrl')} error={errors.ssoUrl} placeholder="https://idp.example.com/sso/saml" />
                <div>
                  <label htmlFor="saml-cert" className="mb-1.5 block text-sm font-medium">
                    IdP signing certificate
                  </label>
                  <TextArea id="saml-cert" rows={3} value={f.certificate} onChange={set('certificate')} className="font-mono text-xs" placeholder="-----BEGIN CERTIFICATE-----" />
                  <FieldError>{errors.certificate}</FieldError>
                </div>
              </>
            )}
          </>
        )}
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={f.enabled} onChange={(e) => setF((x) => ({ ...x, enabled: e.target.checked }))} /> Enabled
        </label>
        <FieldError>{errors.form}</FieldError>
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => onOpenChange(false)}>Cancel</Button>
          <Button type="submit" loading={pending}>{creating ? 'Add provider' : 'Save'}</Button>
        </div>
      </form>
    </Dialog>
  );
}

function SSOPanel() {
  const queryClient = useQueryClient();
  const providers = useQuery({ queryKey: providersQueryKey, queryFn: listProviders });
  const sso = useQuery({ queryKey: ssoSettingsQueryKey, queryFn: getSSOSettings });
  const [editing, setEditing] = useState<SSOProvider | null>(null);
  const [dialogOpen, setDialogOpen] = useState(false);
  const [toDelete, setToDelete] = useState<SSOProvider | null>(null);
  const provisioning = useMutation({
    mutationFn: setAutoProvisioning,
    onSuccess: (next) => {
      queryClient.setQueryData(ssoSettingsQueryKey, next);
      toast.success(next.user_auto_provisioning.enabled ? 'User auto-provisioning turned on.' : 'User auto-provisioning turned off.');
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const remove = useMutation({
    mutationFn: (p: SSOProvider) => deleteProvider(p.provider_id),
    onSuccess: () => {
      toast.success('Identity provider removed.');
      setToDelete(null);
      void queryClient.invalidateQueries({ queryKey: providersQueryKey });
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const list = providers.data?.identity_providers ?? [];
  const sp = sso.data?.service_provider;
  const auto = sso.data?.user_auto_provisioning;

  return (
    <>
      <Panel
        title="Single sign-on"
        description="Let members sign in with your company's identity provider (OpenID Connect or SAML)."
        actions={
          <Button size="sm" onClick={() => { setEditing(null); setDialogOpen(true); }}>
            <PlusIcon size={14} /> Add provider
          </Button>
        }
      >
        {providers.isError ? (
          <p role="alert" className="p-6 text-sm text-red-600">{MESSAGES.providersFailed}</p>
        ) : (
          <QueryState pending={providers.isPending} error={null} empty={providers.isSuccess && list.length === 0} emptyText="No identity providers yet." />
        )}
        {list.length > 0 && (
          <ul className="divide-y divide-gray-100 dark:divide-gray-800">
            {list.map((p) => (
              <li key={p.provider_id} className="flex flex-wrap items-center justify-between gap-3 px-4 py-3" data-testid={`provider-${p.name}`}>
                <div className="min-w-0">
                  <p className="flex items-center gap-2 text-sm font-medium">
                    {p.name} <Pill tone="blue">{p.type === 'oidc' ? 'OIDC' : 'SAML'}</Pill>
                    {p.enabled ? <Pill tone="green">Enabled</Pill> : <Pill>Disabled</Pill>}
                  </p>
                  <p className="mt-0.5 truncate text-xs text-gray-500">
                    {p.domains.join(', ')} · {p.type === 'oidc' ? p.issuer : p.identity_provider_entity_id}
                  </p>
                </div>
                <div className="flex gap-1">
                  <Button size="sm" variant="ghost" aria-label={`Edit ${p.name}`} onClick={() => { setEditing(p); setDialogOpen(true); }}>
                    Edit
                  </Button>
                  <Button size="icon-sm" variant="ghost" aria-label={`Remove ${p.name}`} onClick={() => setToDelete(p)}>
                    <TrashIcon size={15} />
                  </Button>
                </div>
              </li>
            ))}
          </ul>
        )}
      </Panel>

      <SsoDomainsPanel />
      <SsoRequiredPanel />

      <Panel title="User auto-provisioning">
        {!auto ? (
          <QueryState pending={sso.isPending} error={sso.error} />
        ) : (
          <Row
            title="Create members on first SSO sign-in"
            description={
              auto.enabled ? (
                <span data-testid="provisioning-by">
                  On
                  {auto.enabled_by_user_email && ` — enabled by ${auto.enabled_by_user_email}`}
                  {auto.enabled_at_unix && ` on ${formatDate(auto.enabled_at_unix)}`}. People with a matching email domain join as editors.
                </span>
              ) : (
                'Off — people need an invitation before they can sign in with SSO.'
              )
            }
            control={
              <Switch label="User auto-provisioning" checked={auto.enabled} disabled={provisioning.isPending} onChange={(on) => provisioning.mutate(on)} />
            }
          />
        )}
      </Panel>

      <Panel title="Service provider details" description="Give these values to the administrator of your identity provider.">
        {!sp ? (
          <QueryState pending={sso.isPending} error={sso.error} />
        ) : (
          <dl className="divide-y divide-gray-100 dark:divide-gray-800">
            <CopyRow label="OIDC redirect URI" value={sp.oidc_redirect_uri} />
            <CopyRow label="SAML entity ID" value={sp.saml_entity_id} />
            <CopyRow label="SAML ACS URL" value={sp.saml_acs_url} />
            <CopyRow label="SAML metadata URL" value={sp.saml_metadata_url} />
          </dl>
        )}
      </Panel>

      <ProviderDialog open={dialogOpen} onOpenChange={setDialogOpen} provider={editing} />
      <ConfirmDialog
        open={toDelete !== null}
        onOpenChange={(o) => !o && setToDelete(null)}
        title="Remove identity provider?"
        description={toDelete ? `Members from ${toDelete.domains.join(', ')} can no longer sign in through “${toDelete.name}”.` : undefined}
        confirmLabel="Remove provider"
        loading={remove.isPending}
        onConfirm={() => toDelete && remove.mutate(toDelete)}
      />
    </>
  );
}

export function SecurityPage() {
  const { isAdmin, isPending } = useWorkspaceRole();
  return (
    <Page title="Workspace security" description="Sign-in rules, single sign-on and data settings for everyone in this workspace.">
      {isAdmin && <SignInPolicyPanel />}
      {isAdmin && <SSOPanel />}
      {!isPending && <TrainingOptOutPanel isAdmin={isAdmin} />}
    </Page>
  );
}
