import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { Dialog } from '@/components/Dialog';
import { Select, TextField } from '@/components/Field';
import { CloseIcon, PlusIcon, TrashIcon } from '@/components/icons';
import { DUTIES, useWorkspaceAccess, useWorkspaceRole } from '@/lib/access';
import { Panel, QueryState } from '@/components/admin';
import { Page } from '@/components/Page';
import { listMembers, membersQueryKey } from '@/lib/members';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { toast } from '@/lib/toast';
import {
  addGroupMember,
  createGroup,
  deleteGroup,
  groupsQueryKey,
  listGroups,
  DUTY_OPTIONS,
  FEATURE_OPTIONS,
  optionsWith,
  permissionName,
  removeGroupMember,
  renameGroup,
  splitPermissions,
  updateGroupPermissions,
  validateGroupName,
  type PermissionOption,
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

function PermissionSection({
  title,
  explanation,
  options,
  checked,
  onToggle,
}: {
  title: string;
  explanation: string;
  options: PermissionOption[];
  checked: Set<string>;
  onToggle: (value: string, on: boolean) => void;
}) {
  const explanationId = useId();
  return (
    <fieldset aria-describedby={explanationId} className="space-y-2">
      <legend className="text-sm font-semibold">{title}</legend>
      <p id={explanationId} className="text-xs text-gray-600 dark:text-gray-400">
        {explanation}
      </p>
      <ul className="space-y-1">
        {options.map((o) => (
          <li key={o.value}>
            <label className="flex cursor-pointer items-start gap-3 rounded-lg px-2 py-1.5 hover:bg-gray-50 dark:hover:bg-gray-800/60">
              <input
                type="checkbox"
                className="mt-0.5 size-4 shrink-0 cursor-pointer accent-gray-900 dark:accent-white"
                checked={checked.has(o.value)}
                onChange={(e) => onToggle(o.value, e.target.checked)}
              />
              <span className="min-w-0">
                <span className="block text-sm font-medium">{o.label}</span>
                <span className="block text-xs text-gray-500">{o.hint}</span>
              </span>
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

/** Edits a group's permissions: the features its members are limited to, and the admin duties delegated to them. */
function GroupPermissionsDialog({ group, open, onOpenChange }: { group: WorkspaceGroup; open: boolean; onOpenChange: (o: boolean) => void }) {
  const queryClient = useQueryClient();
  const [checked, setChecked] = useState(() => new Set<string>(group.permissions ?? []));
  const [error, setError] = useState<string>();
  const { features, duties } = splitPermissions([...new Set([...(group.permissions ?? []), ...checked])]);
  const toggle = (value: string, on: boolean) =>
    setChecked((prev) => {
      const next = new Set(prev);
      if (on) next.add(value);
      else next.delete(value);
      return next;
    });
  const save = useMutation({
    // Kept in the order of the sections, features first.
    mutationFn: () => {
      const order = [...optionsWith(FEATURE_OPTIONS, features), ...optionsWith(DUTY_OPTIONS, duties)].map((o) => o.value);
      return updateGroupPermissions(group.id, order.filter((p) => checked.has(p)));
    },
    onMutate: () => setError(undefined),
    onSuccess: () => {
      toast.success(`Permissions of “${group.name}” saved.`);
      void queryClient.invalidateQueries({ queryKey: groupsQueryKey });
      onOpenChange(false);
    },
    onError: (err) => setError(httpErrorMessage(err)),
  });
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={`Permissions of ${group.name}`} description="What members of this group may use, and which admin tasks they may do." className="sm:max-w-lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
        className="space-y-6"
      >
        <PermissionSection
          title="Features members may use"
          explanation="If any is ticked, members are limited to the ticked features (and those their other groups give); none ticked limits nothing."
          options={optionsWith(FEATURE_OPTIONS, features)}
          checked={checked}
          onToggle={toggle}
        />
        <PermissionSection
          title="Admin duties delegated to members"
          explanation="Members may do these admin tasks without being workspace admins, never beyond their own access."
          options={optionsWith(DUTY_OPTIONS, duties)}
          checked={checked}
          onToggle={toggle}
        />
        {error && (
          <p role="alert" className="rounded-lg bg-red-50 p-3 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
            {error}
          </p>
        )}
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => onOpenChange(false)}>Cancel</Button>
          <Button type="submit" loading={save.isPending}>Save permissions</Button>
        </div>
      </form>
    </Dialog>
  );
}

/** One line per section: what the group limits and delegates. */
function PermissionSummary({ group }: { group: WorkspaceGroup }) {
  const { features, duties } = splitPermissions(group.permissions);
  return (
    <dl className="grid gap-1 text-sm sm:grid-cols-[auto_1fr] sm:gap-x-4" aria-label={`Permissions of ${group.name}`}>
      <dt className="text-gray-500">Features</dt>
      <dd>{features.length === 0 ? 'Not limited' : features.map(permissionName).join(', ')}</dd>
      <dt className="text-gray-500">Admin duties</dt>
      <dd>{duties.length === 0 ? 'None' : duties.map(permissionName).join(', ')}</dd>
    </dl>
  );
}

function GroupCard({
  group,
  isAdmin,
  canManageMembers,
  memberEmails,
  otherNames,
}: {
  group: WorkspaceGroup;
  isAdmin: boolean;
  /** Admins, and editors to whom a group delegates group_members_manage. */
  canManageMembers: boolean;
  memberEmails: string[];
  otherNames: string[];
}) {
  const queryClient = useQueryClient();
  const invalidate = () => void queryClient.invalidateQueries({ queryKey: groupsQueryKey });
  const [renameOpen, setRenameOpen] = useState(false);
  const [permissionsOpen, setPermissionsOpen] = useState(false);
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
            <Button size="sm" variant="outline" onClick={() => setPermissionsOpen(true)} aria-label={`Edit permissions of ${group.name}`}>
              Permissions
            </Button>
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
        <PermissionSummary group={group} />
        {group.members.length === 0 ? (
          <p className="text-sm text-gray-500">No members in this group.</p>
        ) : (
          <ul className="flex flex-wrap gap-2" aria-label={`Members of ${group.name}`}>
            {group.members.map((email) => (
              <li key={email} className="inline-flex items-center gap-1 rounded-full bg-gray-100 py-1 pr-1 pl-3 text-sm dark:bg-gray-800">
                {email}
                {canManageMembers && (
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
                {!canManageMembers && <span className="pr-2" />}
              </li>
            ))}
          </ul>
        )}
        {canManageMembers && (
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
      {permissionsOpen && <GroupPermissionsDialog group={group} open onOpenChange={setPermissionsOpen} />}
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
  const access = useWorkspaceAccess();
  const canManageMembers = isAdmin || access.holds(DUTIES.groupMembers);
  const groups = useQuery({ queryKey: groupsQueryKey, queryFn: listGroups });
  const members = useQuery({ queryKey: membersQueryKey, queryFn: listMembers, enabled: canManageMembers });
  const [createOpen, setCreateOpen] = useState(false);
  const list = groups.data ?? [];
  const names = list.map((g) => g.name);
  const memberEmails = (members.data ?? []).map((m) => m.email);
  return (
    <Page
      title="Groups"
      description={
        isAdmin
          ? 'Group members to share voices, history and other resources with several people at once, and to limit or extend what they may do.'
          : canManageMembers
            ? 'Groups of this workspace. You may add and remove members of groups whose permissions you hold; only workspace admins create groups or change their permissions.'
            : 'Groups of this workspace. Only workspace admins can change them.'
      }
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
        <GroupCard key={g.id} group={g} isAdmin={isAdmin} canManageMembers={canManageMembers} memberEmails={memberEmails} otherNames={names.filter((n) => n !== g.name)} />
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
    </Page>
  );
}
