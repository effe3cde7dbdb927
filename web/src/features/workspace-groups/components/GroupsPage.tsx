import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { Dialog } from '@/components/Dialog';
import { Select, TextField } from '@/components/Field';
import { CloseIcon, PlusIcon, TrashIcon } from '@/components/icons';
import { AdminPage, listMembers, membersQueryKey, Panel, QueryState, useWorkspaceRole } from '@/features/workspace-members';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { toast } from '@/lib/toast';
import {
  addGroupMember,
  createGroup,
  deleteGroup,
  groupsQueryKey,
  listGroups,
  removeGroupMember,
  renameGroup,
  validateGroupName,
  type WorkspaceGroup,
} from '../api';

function GroupNameDialog({
  open,
  onOpenChange,
  title,
  submitLabel,
  initial = '',
  otherNames,
  onSubmit,
}: {
  open: boolean;
  onOpenChange: (o: boolean) => void;
  title: string;
  submitLabel: string;
  initial?: string;
  otherNames: string[];
  onSubmit: (name: string) => Promise<unknown>;
}) {
  const [name, setName] = useState(initial);
  const [error, setError] = useState<string>();
  const [pending, setPending] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const err = validateGroupName(name, otherNames);
    if (err) return setError(err);
    setPending(true);
    try {
      await onSubmit(name.trim());
      onOpenChange(false);
    } catch (x) {
      if (x instanceof ApiError && x.status < 500) setError(x.message);
      else toast.error(httpErrorMessage(x));
    } finally {
      setPending(false);
    }
  };
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={title}>
      <form onSubmit={(e) => void submit(e)} noValidate className="space-y-5">
        <TextField label="Group name" value={name} autoFocus maxLength={100} error={error} onChange={(e) => { setName(e.target.value); setError(undefined); }} />
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => onOpenChange(false)}>Cancel</Button>
          <Button type="submit" loading={pending}>{submitLabel}</Button>
        </div>
      </form>
    </Dialog>
  );
}

function GroupCard({ group, isAdmin, memberEmails, otherNames }: { group: WorkspaceGroup; isAdmin: boolean; memberEmails: string[]; otherNames: string[] }) {
  const queryClient = useQueryClient();
  const invalidate = () => void queryClient.invalidateQueries({ queryKey: groupsQueryKey });
  const [renameOpen, setRenameOpen] = useState(false);
  const [deleteOpen, setDeleteOpen] = useState(false);
  const [toAdd, setToAdd] = useState('');
  const add = useMutation({
    mutationFn: (email: string) => addGroupMember(group.id, email),
    onSuccess: (_d, email) => {
      toast.success(`${email} added to ${group.name}.`);
      setToAdd('');
      invalidate();
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const remove = useMutation({
    mutationFn: (email: string) => removeGroupMember(group.id, email),
    onSuccess: (_d, email) => {
      toast.success(`${email} removed from ${group.name}.`);
      invalidate();
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const del = useMutation({
    mutationFn: () => deleteGroup(group.id),
    onSuccess: () => {
      toast.success(`Group “${group.name}” deleted.`);
      setDeleteOpen(false);
      invalidate();
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const candidates = memberEmails.filter((e) => !group.members.includes(e));

  return (
    <Panel
      title={group.name}
      description={`${group.members.length} member${group.members.length === 1 ? '' : 's'}`}
      actions={
        isAdmin && (
          <>
            <Button size="sm" variant="outline" onClick={() => setRenameOpen(true)} aria-label={`Rename ${group.name}`}>
              Rename
            </Button>
            <Button size="icon-sm" variant="ghost" aria-label={`Delete group ${group.name}`} onClick={() => setDeleteOpen(true)}>
              <TrashIcon size={15} />
            </Button>
          </>
        )
      }
    >
      <div className="space-y-4 p-4">
        {group.members.length === 0 ? (
          <p className="text-sm text-gray-500">No members in this group.</p>
        ) : (
          <ul className="flex flex-wrap gap-2" aria-label={`Members of ${group.name}`}>
            {group.members.map((email) => (
              <li key={email} className="inline-flex items-center gap-1 rounded-full bg-gray-100 py-1 pr-1 pl-3 text-sm dark:bg-gray-800">
                {email}
                {isAdmin && (
                  <button
                    type="button"
                    aria-label={`Remove ${email} from ${group.name}`}
                    disabled={remove.isPending}
                    onClick={() => remove.mutate(email)}
                    className="flex size-6 cursor-pointer items-center justify-center rounded-full text-gray-500 hover:bg-gray-200 hover:text-gray-900 dark:hover:bg-gray-700"
                  >
                    <CloseIcon size={12} />
                  </button>
                )}
                {!isAdmin && <span className="pr-2" />}
              </li>
            ))}
          </ul>
        )}
        {isAdmin && (
          <form
            className="flex flex-wrap items-center gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              if (toAdd) add.mutate(toAdd);
            }}
          >
            <Select aria-label={`Member to add to ${group.name}`} value={toAdd} onChange={(e) => setToAdd(e.target.value)} className="w-auto min-w-56" disabled={candidates.length === 0}>
              <option value="">{candidates.length === 0 ? 'Every member is in this group' : 'Choose a member…'}</option>
              {candidates.map((e) => (
                <option key={e} value={e}>{e}</option>
              ))}
            </Select>
            <Button type="submit" size="sm" variant="secondary" disabled={!toAdd} loading={add.isPending}>
              <PlusIcon size={14} /> Add to group
            </Button>
          </form>
        )}
      </div>
      <GroupNameDialog
        key={renameOpen ? 'open' : 'closed'}
        open={renameOpen}
        onOpenChange={setRenameOpen}
        title="Rename group"
        submitLabel="Save"
        initial={group.name}
        otherNames={otherNames}
        onSubmit={async (name) => {
          await renameGroup(group.id, name);
          toast.success('Group renamed.');
          invalidate();
        }}
      />
      <ConfirmDialog
        open={deleteOpen}
        onOpenChange={setDeleteOpen}
        title="Delete group?"
        description={`“${group.name}” will be deleted. Its members stay in the workspace; what was shared with the group is no longer shared with them through it.`}
        confirmLabel="Delete group"
        loading={del.isPending}
        onConfirm={() => del.mutate()}
      />
    </Panel>
  );
}

export function GroupsPage() {
  const queryClient = useQueryClient();
  const { isAdmin } = useWorkspaceRole();
  const groups = useQuery({ queryKey: groupsQueryKey, queryFn: listGroups });
  const members = useQuery({ queryKey: membersQueryKey, queryFn: listMembers, enabled: isAdmin });
  const [createOpen, setCreateOpen] = useState(false);
  const list = groups.data ?? [];
  const names = list.map((g) => g.name);
  const memberEmails = (members.data ?? []).map((m) => m.email);
  return (
    <AdminPage
      title="Groups"
      description={isAdmin ? 'Group members to share voices, history and other resources with several people at once.' : 'Groups of this workspace. Only workspace admins can change them.'}
      actions={
        isAdmin && (
          <Button onClick={() => setCreateOpen(true)}>
            <PlusIcon size={16} /> Create group
          </Button>
        )
      }
    >
      {(groups.isPending || groups.isError || list.length === 0) && (
        <Panel>
          <QueryState pending={groups.isPending} error={groups.error} empty={groups.isSuccess && list.length === 0} emptyText="No groups yet." />
        </Panel>
      )}
      {list.map((g) => (
        <GroupCard key={g.id} group={g} isAdmin={isAdmin} memberEmails={memberEmails} otherNames={names.filter((n) => n !== g.name)} />
      ))}
      <GroupNameDialog
        key={createOpen ? 'create-open' : 'create-closed'}
        open={createOpen}
        onOpenChange={setCreateOpen}
        title="Create group"
        submitLabel="Create"
        otherNames={names}
        onSubmit={async (name) => {
          await createGroup(name);
          toast.success(`Group “${name}” created.`);
          void queryClient.invalidateQueries({ queryKey: groupsQueryKey });
        }}
      />
    </AdminPage>
  );
}
