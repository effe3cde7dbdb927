import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { Dialog } from '@/components/Dialog';
import { TextField } from '@/components/Field';
import { PlusIcon, TrashIcon } from '@/components/icons';
import { KeyEnabledSwitch, PermissionsCell } from '@/components/keys/KeyCells';
import { KeyFormDialog, quotaText } from '@/components/keys/KeyFormDialog';
import { editBody } from '@/lib/api-key-form';
import { DUTIES, useAdminOrDuty } from '@/lib/access';
import {
  AdminOnlyNotice,
  Panel,
  QueryState,
  tableClass,
  tdClass,
  thClass,
  theadClass,
  trClass,
} from '@/components/admin';
import { Page } from '@/components/Page';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { formatDate } from '@/lib/format';
import { toast } from '@/lib/toast';
import {
  createServiceAccount,
  createServiceAccountKey,
  deleteServiceAccount,
  deleteServiceAccountKey,
  editServiceAccountKey,
  listServiceAccounts,
  serviceAccountsQueryKey,
  type ServiceAccount,
  type ServiceAccountKey,
} from '../api';

function CreateServiceAccountDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (o: boolean) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  const close = (o: boolean) => {
    onOpenChange(o);
    if (!o) {
      setName('');
      setError(undefined);
    }
  };
  const create = useMutation({
    mutationFn: createServiceAccount,
    onSuccess: () => {
      toast.success('Service account created.');
      void queryClient.invalidateQueries({ queryKey: serviceAccountsQueryKey });
      close(false);
    },
    onError: (err) => (err instanceof ApiError && err.status < 500 ? setError(err.message) : toast.error(httpErrorMessage(err))),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const t = name.trim();
    if (!t) return setError('Please enter a name.');
    if (t.length > 100) return setError('The name must be at most 100 characters.');
    create.mutate(t);
  };
  return (
    <Dialog open={open} onOpenChange={close} title="Create service account" description="A non-human member for servers and automations. It holds its own API keys.">
      <form onSubmit={submit} noValidate className="space-y-5">
        <TextField label="Name" value={name} autoFocus maxLength={100} error={error} onChange={(e) => { setName(e.target.value); setError(undefined); }} placeholder="e.g. CI pipeline" />
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => close(false)}>Cancel</Button>
          <Button type="submit" loading={create.isPending}>Create</Button>
        </div>
      </form>
    </Dialog>
  );
}

function ServiceAccountCard({ account }: { account: ServiceAccount }) {
  const queryClient = useQueryClient();
  const invalidate = () => void queryClient.invalidateQueries({ queryKey: serviceAccountsQueryKey });
  const id = account.service_account_user_id;
  const keys = account['api-keys'] ?? [];
  const [createOpen, setCreateOpen] = useState(false);
  const [toEdit, setToEdit] = useState<ServiceAccountKey | null>(null);
  const [keyToDelete, setKeyToDelete] = useState<ServiceAccountKey | null>(null);
  const [deleteOpen, setDeleteOpen] = useState(false);
  const toggle = useMutation({
    mutationFn: ({ key, on }: { key: ServiceAccountKey; on: boolean }) => editServiceAccountKey(id, key.key_id, { is_enabled: on }),
    onSuccess: (_d, { key, on }) => {
      toast.success(on ? `“${key.name}” enabled.` : `“${key.name}” disabled.`);
      invalidate();
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const removeKey = useMutation({
    mutationFn: (key: ServiceAccountKey) => deleteServiceAccountKey(id, key.key_id),
    onSuccess: () => {
      toast.success('API key deleted.');
      setKeyToDelete(null);
      invalidate();
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const removeAccount = useMutation({
    mutationFn: () => deleteServiceAccount(id),
    onSuccess: () => {
      toast.success(`Service account “${account.name}” deleted.`);
      setDeleteOpen(false);
      invalidate();
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });

  return (
    <Panel
      title={account.name}
      description={account.created_at_unix ? `Created ${formatDate(account.created_at_unix)}` : undefined}
      actions={
        <>
          <Button size="sm" variant="outline" onClick={() => setCreateOpen(true)}>
            <PlusIcon size={14} /> Create key
          </Button>
          <Button size="icon-sm" variant="ghost" aria-label={`Delete service account ${account.name}`} onClick={() => setDeleteOpen(true)}>
            <TrashIcon size={15} />
          </Button>
        </>
      }
    >
      {keys.length === 0 ? (
        <p className="p-6 text-center text-sm text-gray-500">No API keys yet.</p>
      ) : (
        <div className="overflow-x-auto">
          <table className={tableClass}>
            <thead className={theadClass}>
              <tr>
                <th scope="col" className={thClass}>Key</th>
                <th scope="col" className={`${thClass} hidden md:table-cell`}>Permissions</th>
                <th scope="col" className={`${thClass} hidden md:table-cell`}>Characters</th>
                <th scope="col" className={thClass}>Enabled</th>
                <th scope="col" className={thClass}><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.key_id} className={trClass}>
                  <td className={tdClass}>
                    <div className="font-medium">{key.name}</div>
                    <div className="font-mono text-xs text-gray-500">{key.hint}</div>
                  </td>
                  <td className={`${tdClass} hidden md:table-cell`}>
                    <PermissionsCell permissions={key.permissions} />
                  </td>
                  <td className={`${tdClass} hidden whitespace-nowrap text-gray-600 md:table-cell dark:text-gray-400`}>
                    {quotaText(key.character_count, key.character_limit)}
                  </td>
                  <td className={tdClass}>
                    <KeyEnabledSwitch
                      enabled={!key.is_disabled}
                      name={key.name}
                      pending={toggle.isPending && toggle.variables?.key.key_id === key.key_id}
                      onChange={(on) => toggle.mutate({ key, on })}
                    />
                  </td>
                  <td className={`${tdClass} text-right whitespace-nowrap`}>
                    <Button variant="ghost" size="sm" aria-label={`Edit ${key.name}`} onClick={() => setToEdit(key)}>
                      Edit
                    </Button>
                    <Button variant="ghost" size="icon-sm" aria-label={`Delete ${key.name}`} onClick={() => setKeyToDelete(key)}>
                      <TrashIcon size={15} />
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <KeyFormDialog
        open={createOpen}
        onOpenChange={setCreateOpen}
        title={`New key for ${account.name}`}
        submitLabel="Create"
        onSubmit={async (v) => {
          const created = await createServiceAccountKey(id, v);
          invalidate();
          return { secret: created['xi-api-key'], name: v.name };
        }}
      />
      <KeyFormDialog
        open={toEdit !== null}
        onOpenChange={(o) => !o && setToEdit(null)}
        title="Edit API key"
        submitLabel="Save"
        initial={toEdit ? { name: toEdit.name, permissions: toEdit.permissions ?? 'all', characterLimit: toEdit.character_limit ?? undefined } : undefined}
        onSubmit={async (v) => {
          if (!toEdit) return;
          const body = editBody(toEdit, v);
          if (body) {
            await editServiceAccountKey(id, toEdit.key_id, body);
            toast.success('API key updated.');
            invalidate();
          }
        }}
      />
      <ConfirmDialog
        open={keyToDelete !== null}
        onOpenChange={(o) => !o && setKeyToDelete(null)}
        title="Delete API key?"
        description={keyToDelete ? `“${keyToDelete.name}” will stop working immediately. This cannot be undone.` : undefined}
        confirmLabel="Delete key"
        loading={removeKey.isPending}
        onConfirm={() => keyToDelete && removeKey.mutate(keyToDelete)}
      />
      <ConfirmDialog
        open={deleteOpen}
        onOpenChange={setDeleteOpen}
        title="Delete service account?"
        description={`“${account.name}” and its ${keys.length} API key${keys.length === 1 ? '' : 's'} will stop working immediately. This cannot be undone.`}
        confirmLabel="Delete service account"
        loading={removeAccount.isPending}
        onConfirm={() => removeAccount.mutate()}
      />
    </Panel>
  );
}

export function ServiceAccountsPage() {
  // Admins, and editors whose groups delegate service accounts to them.
  const { allowed, isPending } = useAdminOrDuty(DUTIES.serviceAccounts);
  const query = useQuery({ queryKey: serviceAccountsQueryKey, queryFn: listServiceAccounts, enabled: allowed });
  const [createOpen, setCreateOpen] = useState(false);
  const accounts = query.data?.['service-accounts'] ?? [];
  return (
    <Page
      title="Service accounts"
      description="Accounts for servers and automations, each with its own API keys, permissions and quotas."
      actions={
        allowed && (
          <Button onClick={() => setCreateOpen(true)}>
            <PlusIcon size={16} /> Create service account
          </Button>
        )
      }
    >
      {!isPending && !allowed ? (
        <AdminOnlyNotice what="service accounts" />
      ) : (
        <>
          {(query.isPending || query.isError || accounts.length === 0) && (
            <Panel>
              <QueryState pending={isPending || query.isPending} error={query.error} empty={query.isSuccess && accounts.length === 0} emptyText="No service accounts yet." />
            </Panel>
          )}
          {accounts.map((a) => (
            <ServiceAccountCard key={a.service_account_user_id} account={a} />
          ))}
        </>
      )}
      <CreateServiceAccountDialog open={createOpen} onOpenChange={setCreateOpen} />
    </Page>
  );
}
