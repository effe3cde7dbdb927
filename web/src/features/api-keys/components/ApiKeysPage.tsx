import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/Button';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { KeyIcon, PlusIcon, TrashIcon } from '@/components/icons';
import { Page } from '@/components/Page';
import { Spinner } from '@/components/Spinner';
import { FEATURES, useWorkspaceAccess } from '@/lib/access';
import { httpErrorMessage } from '@/lib/api';
import { formatDate } from '@/lib/format';
import { toast } from '@/lib/toast';
import { apiKeysQueryKey, createApiKey, deleteApiKey, editApiKey, listApiKeys, type ApiKey } from '../api';
import { editBody } from '@/lib/api-key-form';
import { KeyEnabledSwitch, PermissionsCell } from '@/components/keys/KeyCells';
import { KeyFormDialog, quotaText } from '@/components/keys/KeyFormDialog';

export const KEYS_NOT_ALLOWED = "Your workspace groups don't let you create or change personal API keys. Ask a workspace admin for access.";

export function ApiKeysPage() {
  const queryClient = useQueryClient();
  // Creating and editing (renaming, enabling, disabling) keys is a group feature; deleting is not.
  const canEdit = useWorkspaceAccess().canUse(FEATURES.createUserApiKey);
  const query = useQuery({ queryKey: apiKeysQueryKey, queryFn: listApiKeys });
  const [createOpen, setCreateOpen] = useState(false);
  const [toEdit, setToEdit] = useState<ApiKey | null>(null);
  const [toDelete, setToDelete] = useState<ApiKey | null>(null);
  const invalidate = () => void queryClient.invalidateQueries({ queryKey: apiKeysQueryKey });
  const remove = useMutation({
    mutationFn: (key: ApiKey) => deleteApiKey(key.key_id),
    onSuccess: () => {
      toast.success('API key deleted.');
      setToDelete(null);
      invalidate();
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const toggle = useMutation({
    mutationFn: ({ key, on }: { key: ApiKey; on: boolean }) => editApiKey({ key_id: key.key_id, is_enabled: on }),
    onSuccess: (_d, { key, on }) => {
      toast.success(on ? `“${key.name}” enabled.` : `“${key.name}” disabled.`);
      invalidate();
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const keys = query.data?.api_keys ?? [];

  return (
    <Page
      title="API keys"
      description={
        <>
          Use an API key in the <code className="font-mono text-xs">xi-api-key</code> header to call the API from your
          own code. Limit what a key may do with permissions and a character quota.
        </>
      }
      actions={
        canEdit && (
          <Button onClick={() => setCreateOpen(true)}>
            <PlusIcon size={16} /> Create API key
          </Button>
        )
      }
    >
      {!canEdit && (
        <p role="status" className="rounded-lg bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-200">
          {KEYS_NOT_ALLOWED}
        </p>
      )}

      <div className="overflow-x-auto rounded-2xl border border-gray-200 dark:border-gray-800">
        {query.isPending && (
          <div className="flex items-center gap-2 p-6 text-sm text-gray-500">
            <Spinner /> Loading keys…
          </div>
        )}
        {query.isError && (
          <p role="alert" className="p-6 text-sm text-red-600">
            {httpErrorMessage(query.error)}
          </p>
        )}
        {query.isSuccess && keys.length === 0 && (
          <div className="flex flex-col items-center gap-2 p-10 text-center text-sm text-gray-500">
            <KeyIcon size={24} />
            No API keys yet.
          </div>
        )}
        {keys.length > 0 && (
          <table className="w-full text-left text-sm">
            <thead className="bg-gray-50 text-xs text-gray-500 uppercase dark:bg-gray-900">
              <tr>
                <th scope="col" className="px-4 py-3 font-medium">Name</th>
                <th scope="col" className="px-4 py-3 font-medium">Key</th>
                <th scope="col" className="hidden px-4 py-3 font-medium md:table-cell">Permissions</th>
                <th scope="col" className="hidden px-4 py-3 font-medium md:table-cell">Characters</th>
                <th scope="col" className="px-4 py-3 font-medium">Enabled</th>
                <th scope="col" className="hidden px-4 py-3 font-medium lg:table-cell">Created</th>
                <th scope="col" className="px-4 py-3"><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.key_id} className="border-t border-gray-100 dark:border-gray-800">
                  <td className="px-4 py-3 font-medium">
                    {key.name}
                    {key.is_disabled && key.disable_reason && (
                      <div className="text-xs font-normal text-gray-500">Disabled: {key.disable_reason.replace(/_/g, ' ')}</div>
                    )}
                  </td>
                  <td className="px-4 py-3 font-mono text-xs text-gray-600 dark:text-gray-400">{key.key_preview}</td>
                  <td className="hidden px-4 py-3 md:table-cell">
                    <PermissionsCell permissions={key.permissions} />
                  </td>
                  <td className="hidden px-4 py-3 whitespace-nowrap text-gray-600 md:table-cell dark:text-gray-400">
                    {quotaText(key.character_count, key.character_limit)}
                  </td>
                  <td className="px-4 py-3">
                    <KeyEnabledSwitch
                      enabled={!key.is_disabled}
                      name={key.name}
                      pending={!canEdit || (toggle.isPending && toggle.variables?.key.key_id === key.key_id)}
                      onChange={(on) => toggle.mutate({ key, on })}
                    />
                  </td>
                  <td className="hidden px-4 py-3 text-gray-500 lg:table-cell">{formatDate(key.created_at_unix)}</td>
                  <td className="px-4 py-3 text-right whitespace-nowrap">
                    {canEdit && (
                      <Button variant="ghost" size="sm" aria-label={`Edit ${key.name}`} onClick={() => setToEdit(key)}>
                        Edit
                      </Button>
                    )}
                    <Button variant="ghost" size="icon-sm" aria-label={`Delete ${key.name}`} onClick={() => setToDelete(key)}>
                      <TrashIcon size={15} />
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>

      <KeyFormDialog
        open={createOpen}
        onOpenChange={setCreateOpen}
        title="Create API key"
        submitLabel="Create"
        onSubmit={async (v) => {
          const created = await createApiKey(v);
          invalidate();
          return { secret: created.xi_api_key, name: created.name };
        }}
      />
      <KeyFormDialog
        open={toEdit !== null}
        onOpenChange={(o) => !o && setToEdit(null)}
        title="Edit API key"
        submitLabel="Save"
        initial={
          toEdit
            ? { name: toEdit.name, permissions: toEdit.permissions ?? 'all', characterLimit: toEdit.character_limit ?? undefined }
            : undefined
        }
        onSubmit={async (v) => {
          if (!toEdit) return;
          const body = editBody(toEdit, v);
          if (body) {
            await editApiKey({ key_id: toEdit.key_id, ...body });
            toast.success('API key updated.');
            invalidate();
          }
        }}
      />
      <ConfirmDialog
        open={toDelete !== null}
        onOpenChange={(open) => !open && setToDelete(null)}
        title="Delete API key?"
        description={
          toDelete ? `“${toDelete.name}” will stop working immediately. This cannot be undone.` : undefined
        }
        confirmLabel="Delete key"
        loading={remove.isPending}
        onConfirm={() => toDelete && remove.mutate(toDelete)}
      />
    </Page>
  );
}
