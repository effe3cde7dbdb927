import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { TextField } from '@/components/Field';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { toast } from '@/lib/toast';
import { createWorkspace, renameWorkspace, workspacesQueryKey } from '../api';

/** Names a new workspace, or renames the current one. */
export function WorkspaceNameDialog({
  mode,
  current = '',
  onOpenChange,
  onCreated,
}: {
  mode: 'create' | 'rename';
  current?: string;
  onOpenChange: (open: boolean) => void;
  /** Called after a workspace was made (the session already works in it). */
  onCreated?: (name: string) => void | Promise<void>;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(current);
  const [error, setError] = useState<string | undefined>();
  const save = useMutation({
    mutationFn: (n: string) => (mode === 'create' ? createWorkspace(n) : renameWorkspace(n)),
    onSuccess: async (_, n) => {
      onOpenChange(false);
      if (mode === 'create') {
        await onCreated?.(n);
      } else {
        await queryClient.invalidateQueries({ queryKey: workspacesQueryKey });
        toast.success(`Workspace renamed to ${n}`);
      }
    },
    onError: (err) => (err instanceof ApiError && err.status < 500 ? setError(err.message) : toast.error(httpErrorMessage(err))),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return setError('Please give the workspace a name.');
    save.mutate(name.trim());
  };
  return (
    <Dialog
      open
      onOpenChange={onOpenChange}
      title={mode === 'create' ? 'Create a workspace' : 'Rename workspace'}
      description={
        mode === 'create'
          ? 'A new workspace on the Free plan, with you as its admin. You can invite people to it later.'
          : undefined
      }
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        <TextField
          label="Workspace name"
          name="name"
          maxLength={100}
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            setError(undefined);
          }}
          error={error}
          autoFocus
        />
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending}>
            {mode === 'create' ? 'Create workspace' : 'Save'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
