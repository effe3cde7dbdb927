import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Badge } from '@/components/Badge';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { Select } from '@/components/Field';
import { TrashIcon } from '@/components/icons';
import { Spinner } from '@/components/Spinner';
import { useWorkspaceAccess } from '@/lib/access';
import { useSession } from '@/lib/session';
import { httpErrorMessage } from '@/lib/api';
import { toast } from '@/lib/toast';
import {
  canManageSharing,
  EVERYONE,
  EVERYONE_LABEL,
  getHistoryAccess,
  getSharePrincipals,
  grantsOf,
  historyAccessQueryKey,
  RESOURCE_ROLES,
  ROLE_HINTS,
  ROLE_LABELS,
  shareHistoryItem,
  sharePrincipalsQueryKey,
  unshareHistoryItem,
  type Grant,
  type ResourceRole,
  type ShareTarget,
} from '../api';

interface ShareWithPeopleDialogProps {
  historyItemId: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

type Change =
  | { op: 'share'; target: ShareTarget; name: string; role: ResourceRole }
  | { op: 'unshare'; target: ShareTarget; name: string };

/** Encodes a share option as a select value: "user:<email>" or "group:<id>". */
const optionValue = (t: ShareTarget) => (t.kind === 'user' ? `user:${t.email}` : `group:${t.id}`);
function parseOption(v: string): ShareTarget | undefined {
  const i = v.indexOf(':');
  if (i < 0) return undefined;
  const rest = v.slice(i + 1);
  return v.startsWith('user:') ? { kind: 'user', email: rest } : { kind: 'group', id: rest };
}

function RoleOptions() {
  return RESOURCE_ROLES.map((r) => (
    <option key={r} value={r}>
      {ROLE_LABELS[r]}
    </option>
  ));
}

/** "Share with people": who may use a history item in the workspace, and with which role. */
export function ShareWithPeopleDialog({ historyItemId, open, onOpenChange }: ShareWithPeopleDialogProps) {
  const queryClient = useQueryClient();
  const targetId = useId();
  const roleId = useId();
  const hintId = useId();
  const session = useSession();
  const { isAdmin } = useWorkspaceAccess();
  const meta = useQuery({
    queryKey: historyAccessQueryKey(historyItemId),
    queryFn: () => getHistoryAccess(historyItemId),
    enabled: open,
    retry: false,
  });
  const principals = useQuery({ queryKey: sharePrincipalsQueryKey, queryFn: getSharePrincipals, enabled: open, retry: false });
  const [target, setTarget] = useState('');
  const [role, setRole] = useState<ResourceRole>('viewer');
  const [error, setError] = useState<string>();

  const change = useMutation({
    mutationFn: (c: Change) =>
      c.op === 'share' ? shareHistoryItem(historyItemId, c.target, c.role) : unshareHistoryItem(historyItemId, c.target),
    onMutate: () => setError(undefined),
    onSuccess: (_d, c) => {
      if (c.op === 'share') toast.success(`${c.name} can now use this as ${ROLE_LABELS[c.role].toLowerCase()}.`);
      else toast.success(`${c.name} no longer has access.`);
      if (c.op === 'share' && optionValue(c.target) === target) setTarget('');
      // Keep focus inside the dialog when the row that held it goes away.
      if (c.op === 'unshare') document.getElementById(targetId)?.focus();
      void queryClient.invalidateQueries({ queryKey: historyAccessQueryKey(historyItemId) });
    },
    onError: (err) => setError(httpErrorMessage(err)),
  });

  const data = meta.data;
  const grants = data ? grantsOf(data, principals.data) : [];
  const manage =
    data !== undefined &&
    canManageSharing(data, { userId: session.data?.user_id, email: session.data?.email, isWorkspaceAdmin: isAdmin }, principals.data);
  const owner = data?.creator_user_id ? principals.data?.users.get(data.creator_user_id) : undefined;
  const isMe = data?.creator_user_id !== null && data?.creator_user_id === session.data?.user_id;
  const everyoneGranted = grants.some((g) => g.kind === 'everyone');
  const groupOptions = (data?.share_options ?? []).filter((o) => o.type === 'group');
  const userOptions = (data?.share_options ?? []).filter((o) => o.type === 'user');

  const add = (e: FormEvent) => {
    e.preventDefault();
    const t = parseOption(target);
    if (!t) {
      setError('Choose a person or group to share with.');
      return;
    }
    const name =
      t.kind === 'user'
        ? t.email
        : t.id === EVERYONE
          ? EVERYONE_LABEL
          : (groupOptions.find((o) => o.id === t.id)?.name ?? t.id);
    change.mutate({ op: 'share', target: t, name, role });
  };

  const loading = meta.isPending || (principals.isPending && !principals.isError);

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="Share with people"
      description="Choose who in your workspace can use this audio, and what they may do with it."
      // A variant, so it wins over the dialog's own max-w-md.
      className="sm:max-w-lg"
    >
      {meta.isError && (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400">
          {httpErrorMessage(meta.error)}
        </p>
      )}
      {loading && !meta.isError && (
        <div className="flex items-center gap-2 text-sm text-gray-500">
          <Spinner /> Loading who has access…
        </div>
      )}
      {data && !loading && (
        <div className="space-y-5">
          {manage ? (
            <form onSubmit={add} aria-label="Add people" className="space-y-2">
              <div className="flex flex-wrap items-end gap-2 sm:flex-nowrap">
                <div className="min-w-0 flex-1 basis-48">
                  <label htmlFor={targetId} className="mb-1.5 block text-sm font-medium text-gray-800 dark:text-gray-200">
                    Add a member or group
                  </label>
                  <Select
                    id={targetId}
                    value={target}
                    onChange={(e) => {
                      setTarget(e.target.value);
                      setError(undefined);
                    }}
                  >
                    <option value="">Choose…</option>
                    {!everyoneGranted && <option value={`group:${EVERYONE}`}>{EVERYONE_LABEL}</option>}
                    {groupOptions.length > 0 && (
                      <optgroup label="Groups">
                        {groupOptions.map((o) => (
                          <option key={o.id} value={`group:${o.id}`}>
                            {o.name}
                          </option>
                        ))}
                      </optgroup>
                    )}
                    {userOptions.length > 0 && (
                      <optgroup label="Members">
                        {userOptions.map((o) => (
                          <option key={o.id} value={`user:${o.name}`}>
                            {o.name}
                          </option>
                        ))}
                      </optgroup>
                    )}
                  </Select>
                </div>
                <div className="w-40 shrink-0">
                  <label htmlFor={roleId} className="mb-1.5 block text-sm font-medium text-gray-800 dark:text-gray-200">
                    Role
                  </label>
                  <Select id={roleId} value={role} aria-describedby={hintId} onChange={(e) => setRole(e.target.value as ResourceRole)}>
                    <RoleOptions />
                  </Select>
                </div>
                <Button
                  type="submit"
                  disabled={change.isPending}
                  loading={change.isPending && change.variables?.op === 'share' && optionValue(change.variables.target) === target}
                >
                  Share
                </Button>
              </div>
              <p id={hintId} className="text-xs text-gray-500 dark:text-gray-400">
                {ROLE_LABELS[role]}: {ROLE_HINTS[role]}
              </p>
            </form>
          ) : (
            <p className="rounded-lg bg-gray-50 p-3 text-sm text-gray-700 dark:bg-gray-800/60 dark:text-gray-300">
              Only its owner, people with admin access to it and workspace admins can change who this audio is shared with.
            </p>
          )}

          {error && (
            <p role="alert" className="rounded-lg bg-red-50 p-3 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
              {error}
            </p>
          )}

          <div>
            <h3 className="mb-2 text-sm font-semibold">People with access</h3>
            <ul aria-label="People with access" className="divide-y divide-gray-100 rounded-xl border border-gray-200 dark:divide-gray-800 dark:border-gray-800">
              {data.creator_user_id && (
                <li className="flex items-center justify-between gap-3 px-3 py-2.5">
                  <span className="min-w-0 truncate text-sm">
                    {owner?.email ?? 'Former member'}
                    {isMe && <span className="text-gray-500"> (you)</span>}
                  </span>
                  <Badge>Owner</Badge>
                </li>
              )}
              {grants.map((g) => (
                <GrantRow
                  key={g.key}
                  grant={g}
                  manage={manage}
                  pending={change.isPending}
                  onRole={(r) => g.target && change.mutate({ op: 'share', target: g.target, name: g.name, role: r })}
                  onRemove={() => g.target && change.mutate({ op: 'unshare', target: g.target, name: g.name })}
                />
              ))}
            </ul>
            {grants.length === 0 && <p className="mt-2 text-xs text-gray-500">Not shared with anyone else yet.</p>}
          </div>
        </div>
      )}
    </Dialog>
  );
}

function GrantRow({
  grant,
  manage,
  pending,
  onRole,
  onRemove,
}: {
  grant: Grant;
  manage: boolean;
  pending: boolean;
  onRole: (role: ResourceRole) => void;
  onRemove: () => void;
}) {
  const editable = manage && grant.target !== undefined;
  const kind = grant.kind === 'group' ? 'Group' : grant.kind === 'everyone' ? 'Workspace' : 'Member';
  return (
    <li className="flex items-center gap-3 px-3 py-2" data-testid={`grant-${grant.key}`}>
      <span className="min-w-0 flex-1">
        <span className="block truncate text-sm">{grant.name}</span>
        <span className="block text-xs text-gray-500">{kind}</span>
      </span>
      {editable ? (
        <>
          <div className="w-40 shrink-0">
            <Select
              aria-label={`Role for ${grant.name}`}
              value={grant.role}
              aria-busy={pending || undefined}
              // Not disabled while a change is under way: that would drop the keyboard focus.
              onChange={(e) => !pending && onRole(e.target.value as ResourceRole)}
            >
              <RoleOptions />
            </Select>
          </div>
          <Button variant="ghost" size="icon-sm" aria-label={`Remove ${grant.name}`} onClick={() => !pending && onRemove()}>
            <TrashIcon size={15} />
          </Button>
        </>
      ) : (
        <Badge>{ROLE_LABELS[grant.role]}</Badge>
      )}
    </li>
  );
}
