import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { Dialog } from '@/components/Dialog';
import { TextField } from '@/components/Field';
import { AlertIcon, CopyIcon, KeyIcon, PlusIcon, TrashIcon } from '@/components/icons';
import { Spinner } from '@/components/Spinner';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { formatDate } from '@/lib/format';
import { toast } from '@/lib/toast';
import { apiKeysQueryKey, createApiKey, deleteApiKey, listApiKeys, type ApiKey, type CreatedApiKey } from '../api';

const NAME_MAX = 100;

async function copy(text: string) {
  try {
    await navigator.clipboard.writeText(text);
    toast.success('API key copied to clipboard');
  } catch {
    toast.error('Could not copy the key. Please select it and copy it manually.');
  }
}

function CreateKeyDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const mutation = useMutation({
    mutationFn: createApiKey,
    onSuccess: (key) => {
      setCreated(key);
      void queryClient.invalidateQueries({ queryKey: apiKeysQueryKey });
    },
    onError: (err) => {
      if (err instanceof ApiError && err.status < 500) setError(err.message);
      else toast.error(httpErrorMessage(err));
    },
  });

  const close = (next: boolean) => {
    onOpenChange(next);
    if (!next) {
      setName('');
      setError(undefined);
      setCreated(null);
      mutation.reset();
    }
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return setError('Please enter a name for the key.');
    if (trimmed.length > NAME_MAX) return setError(`The name must be at most ${NAME_MAX} characters.`);
    mutation.mutate(trimmed);
  };

  if (created) {
    return (
      <Dialog open={open} onOpenChange={close} title="API key created" description={`“${created.name}”`}>
        <div className="mb-4 flex gap-2 rounded-lg bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100" role="alert">
          <AlertIcon size={18} className="shrink-0" />
          <span>This key will not be shown again. Copy it now and keep it somewhere safe.</span>
        </div>
        <div className="flex items-center gap-2 rounded-xl border border-gray-200 bg-gray-50 p-2 pl-3 dark:border-gray-700 dark:bg-gray-950">
          <code data-testid="new-api-key" className="min-w-0 flex-1 font-mono text-sm break-all select-all">
            {created.xi_api_key}
          </code>
          <Button size="sm" onClick={() => void copy(created.xi_api_key)}>
            <CopyIcon size={14} /> Copy
          </Button>
        </div>
        <div className="mt-6 flex justify-end">
          <Button variant="outline" onClick={() => close(false)}>
            Done
          </Button>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog open={open} onOpenChange={close} title="Create API key">
      <form onSubmit={onSubmit} noValidate className="space-y-5">
        <TextField
          label="Name"
          value={name}
          maxLength={NAME_MAX}
          onChange={(e) => {
            setName(e.target.value);
            setError(undefined);
          }}
          placeholder="e.g. Production server"
          error={error}
          autoFocus
        />
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => close(false)}>
            Cancel
          </Button>
          <Button type="submit" loading={mutation.isPending}>
            Create
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

export function ApiKeysPage() {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: apiKeysQueryKey, queryFn: listApiKeys });
  const [createOpen, setCreateOpen] = useState(false);
  const [toDelete, setToDelete] = useState<ApiKey | null>(null);
  const remove = useMutation({
    mutationFn: (key: ApiKey) => deleteApiKey(key.key_id),
    onSuccess: () => {
      toast.success('API key deleted.');
      setToDelete(null);
      void queryClient.invalidateQueries({ queryKey: apiKeysQueryKey });
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const keys = query.data?.api_keys ?? [];

  return (
    <div className="mx-auto max-w-4xl p-4 sm:p-8">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">API keys</h1>
          <p className="mt-1 text-sm text-gray-600 dark:text-gray-400">
            Use an API key in the <code className="font-mono text-xs">xi-api-key</code> header to call the API from
            your own code.
          </p>
        </div>
        <Button onClick={() => setCreateOpen(true)}>
          <PlusIcon size={16} /> Create API key
        </Button>
      </div>

      <div className="mt-8 overflow-hidden rounded-2xl border border-gray-200 dark:border-gray-800">
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
                <th scope="col" className="hidden px-4 py-3 font-medium sm:table-cell">Created</th>
                <th scope="col" className="px-4 py-3"><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.key_id} className="border-t border-gray-100 dark:border-gray-800">
                  <td className="px-4 py-3 font-medium">{key.name}</td>
                  <td className="px-4 py-3 font-mono text-xs text-gray-600 dark:text-gray-400">{key.key_preview}</td>
                  <td className="hidden px-4 py-3 text-gray-500 sm:table-cell">{formatDate(key.created_at_unix)}</td>
                  <td className="px-4 py-3 text-right">
                    <Button
                      variant="ghost"
                      size="icon-sm"
                      aria-label={`Delete ${key.name}`}
                      onClick={() => setToDelete(key)}
                    >
                      <TrashIcon size={15} />
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>

      <CreateKeyDialog open={createOpen} onOpenChange={setCreateOpen} />
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
    </div>
  );
}
