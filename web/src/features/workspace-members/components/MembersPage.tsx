import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/Button';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { Select } from '@/components/Field';
import { PlusIcon, TrashIcon } from '@/components/icons';
import { DUTIES, useAdminOrDuty, useWorkspaceRole } from '@/lib/access';
import { useSession } from '@/lib/session';
import { httpErrorMessage } from '@/lib/api';
import { formatDate } from '@/lib/format';
import { toast } from '@/lib/toast';
import {
  getSeatLimit,
  invitesQueryKey,
  listInvites,
  removeMember,
  seatLabel,
  seatsQueryKey,
  seatsUsed,
  updateMember,
  withdrawInvite,
  type SeatType,
  type WorkspaceInvite,
} from '../api';
import { listMembers, membersQueryKey, type WorkspaceMember } from '@/lib/members';
import { InviteDialog } from './InviteDialog';
import {
  Panel,
  Pill,
  QueryState,
  tableClass,
  tdClass,
  thClass,
  theadClass,
  trClass,
} from '@/components/admin';
import { Page } from '@/components/Page';

function SeatsSummary({ members, invites }: { members: number; invites: number | undefined }) {
  const limit = useQuery({ queryKey: seatsQueryKey, queryFn: getSeatLimit, staleTime: 60_000 });
  if (invites === undefined) return null;
  const used = seatsUsed(members, invites);
  const total = limit.data ?? undefined;
  const full = total !== undefined && used >= total;
  return (
    <p data-testid="seats" className="text-sm text-gray-600 dark:text-gray-400">
      <span className={full ? 'font-semibold text-amber-700 dark:text-amber-300' : 'font-semibold text-gray-900 dark:text-gray-100'}>
        {used}
        {total !== undefined && ` / ${total}`}
      </span>{' '}
      seats used{invites > 0 ? ` (including ${invites} pending invite${invites === 1 ? '' : 's'})` : ''}
      {full && ' — the plan is full; remove a member or withdraw an invite to add someone.'}
    </p>
  );
}

/** Pending invitations with withdraw (admins only; the list route is admin-only). */
export function PendingInvites() {
  const queryClient = useQueryClient();
  const invites = useQuery({ queryKey: invitesQueryKey, queryFn: listInvites });
  const [toWithdraw, setToWithdraw] = useState<WorkspaceInvite | null>(null);
  const withdraw = useMutation({
    mutationFn: (inv: WorkspaceInvite) => withdrawInvite(inv.email),
    onSuccess: (_d, inv) => {
      toast.success(`Invitation to ${inv.email} withdrawn.`);
      setToWithdraw(null);
      void queryClient.invalidateQueries({ queryKey: invitesQueryKey });
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const list = invites.data?.invites ?? [];
  return (
    <Panel title="Pending invitations" description="Invitations that have not been accepted yet. Each holds a seat until it is accepted, declined, withdrawn or expires.">
      <QueryState pending={invites.isPending} error={invites.error} empty={invites.isSuccess && list.length === 0} emptyText="No pending invitations." />
      {list.length > 0 && (
        <table className={tableClass}>
          <thead className={theadClass}>
            <tr>
              <th scope="col" className={thClass}>Email</th>
              <th scope="col" className={thClass}>Role</th>
              <th scope="col" className={`${thClass} hidden sm:table-cell`}>Sent</th>
              <th scope="col" className={`${thClass} hidden sm:table-cell`}>Expires</th>
              <th scope="col" className={thClass}><span className="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {list.map((inv) => (
              <tr key={inv.email} className={trClass}>
                <td className={`${tdClass} font-medium`}>{inv.email}</td>
                <td className={tdClass}>{seatLabel(inv.seat_type)}</td>
                <td className={`${tdClass} hidden text-gray-500 sm:table-cell`}>{formatDate(inv.created_at_unix)}</td>
                <td className={`${tdClass} hidden text-gray-500 sm:table-cell`}>{formatDate(inv.expires_at_unix)}</td>
                <td className={`${tdClass} text-right`}>
                  <Button variant="outline" size="sm" onClick={() => setToWithdraw(inv)}>
                    Withdraw
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog
        open={toWithdraw !== null}
        onOpenChange={(o) => !o && setToWithdraw(null)}
        title="Withdraw invitation?"
        description={toWithdraw ? `The link sent to ${toWithdraw.email} will stop working.` : undefined}
        confirmLabel="Withdraw"
        loading={withdraw.isPending}
        onConfirm={() => toWithdraw && withdraw.mutate(toWithdraw)}
      />
    </Panel>
  );
}

function MemberRow({
  member,
  isAdmin,
  canRemove,
  isSelf,
  onRemove,
}: {
  member: WorkspaceMember;
  isAdmin: boolean;
  /** Admins, or editors whose groups delegate removing members (editors other than themselves). */
  canRemove: boolean;
  isSelf: boolean;
  onRemove: () => void;
}) {
  const queryClient = useQueryClient();
  const update = useMutation({
    mutationFn: (change: { seat?: SeatType; locked?: boolean }) => updateMember(member.email, change),
    onSuccess: (_d, change) => {
      if (change.seat) toast.success(`${member.email} is now ${seatLabel(change.seat).toLowerCase() === 'admin' ? 'an admin' : 'an editor'}.`);
      else toast.success(change.locked ? `${member.email} is locked.` : `${member.email} is unlocked.`);
      void queryClient.invalidateQueries({ queryKey: membersQueryKey });
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const name = member.first_name || member.email;
  // The owner can't be removed, locked or made an editor; admins don't lock or remove themselves here.
  const editable = isAdmin && !member.is_owner;
  const canLockOrRemove = editable && !isSelf;
  const delegateRemoves = !isAdmin && canRemove && !isSelf && !member.is_owner && member.seat_type !== 'workspace_admin';
  return (
    <tr className={trClass} data-testid={`member-${member.email}`}>
      <td className={tdClass}>
        <div className="font-medium">{name}</div>
        {member.first_name && <div className="text-xs text-gray-500">{member.email}</div>}
      </td>
      <td className={tdClass}>
        {editable ? (
          <Select
            aria-label={`Role of ${member.email}`}
            value={member.seat_type ?? 'workspace_member'}
            disabled={update.isPending}
            onChange={(e) => update.mutate({ seat: e.target.value as SeatType })}
            className="w-32"
          >
            <option value="workspace_admin">Admin</option>
            <option value="workspace_member">Editor</option>
          </Select>
        ) : (
          <span>{seatLabel(member.seat_type)}</span>
        )}
      </td>
      <td className={tdClass}>
        <span className="flex flex-wrap gap-1">
          {member.is_owner && <Pill tone="blue">Owner</Pill>}
          {member.is_locked ? <Pill tone="red">Locked</Pill> : <Pill tone="green">Active</Pill>}
          {isSelf && <Pill>You</Pill>}
        </span>
      </td>
      {(isAdmin || canRemove) && (
        <td className={`${tdClass} text-right whitespace-nowrap`}>
          {delegateRemoves && (
            <Button variant="ghost" size="icon-sm" aria-label={`Remove ${member.email}`} onClick={onRemove}>
              <TrashIcon size={15} />
            </Button>
          )}
          {canLockOrRemove && (
            <span className="inline-flex gap-1">
              <Button variant="outline" size="sm" loading={update.isPending && update.variables?.locked !== undefined} onClick={() => update.mutate({ locked: !member.is_locked })}>
                {member.is_locked ? 'Unlock' : 'Lock'}
              </Button>
              <Button variant="ghost" size="icon-sm" aria-label={`Remove ${member.email}`} onClick={onRemove}>
                <TrashIcon size={15} />
              </Button>
            </span>
          )}
        </td>
      )}
    </tr>
  );
}

export function MembersPage() {
  const queryClient = useQueryClient();
  const session = useSession();
  const { isAdmin } = useWorkspaceRole();
  // Groups can delegate inviting and removing members to editors.
  const canInvite = useAdminOrDuty(DUTIES.invite).allowed;
  const canRemove = useAdminOrDuty(DUTIES.removeMembers).allowed;
  const members = useQuery({ queryKey: membersQueryKey, queryFn: listMembers });
  const invites = useQuery({ queryKey: invitesQueryKey, queryFn: listInvites, enabled: canInvite });
  const [inviteOpen, setInviteOpen] = useState(false);
  const [toRemove, setToRemove] = useState<WorkspaceMember | null>(null);
  const remove = useMutation({
    mutationFn: (m: WorkspaceMember) => removeMember(m.user_id),
    onSuccess: (_d, m) => {
      toast.success(`${m.email} was removed from the workspace.`);
      setToRemove(null);
      void queryClient.invalidateQueries({ queryKey: membersQueryKey });
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const list = members.data ?? [];
  const me = session.data?.user_id;

  return (
    <Page
      title="Members"
      description={
        isAdmin
          ? 'People in this workspace and their roles. Admins manage members, settings and keys; editors create and edit content.'
          : canInvite || canRemove
            ? 'People in this workspace and their roles. Your groups let you invite or remove editors; only workspace admins change roles.'
            : 'People in this workspace and their roles. Only workspace admins can invite people or change roles.'
      }
      actions={
        canInvite && (
          <Button onClick={() => setInviteOpen(true)}>
            <PlusIcon size={16} /> Invite members
          </Button>
        )
      }
    >
      {canInvite && <SeatsSummary members={list.length} invites={invites.data?.invites.length} />}
      <Panel>
        <QueryState pending={members.isPending} error={members.error} empty={members.isSuccess && list.length === 0} emptyText="No members." />
        {list.length > 0 && (
          <table className={tableClass}>
            <thead className={theadClass}>
              <tr>
                <th scope="col" className={thClass}>Member</th>
                <th scope="col" className={thClass}>Role</th>
                <th scope="col" className={thClass}>Status</th>
                {(isAdmin || canRemove) && (
                  <th scope="col" className={thClass}>
                    <span className="sr-only">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {list.map((m) => (
                <MemberRow key={m.user_id} member={m} isAdmin={isAdmin} canRemove={canRemove} isSelf={m.user_id === me} onRemove={() => setToRemove(m)} />
              ))}
            </tbody>
          </table>
        )}
      </Panel>
      {canInvite && <PendingInvites />}
      <InviteDialog open={inviteOpen} onOpenChange={setInviteOpen} editorsOnly={!isAdmin} />
      <ConfirmDialog
        open={toRemove !== null}
        onOpenChange={(o) => !o && setToRemove(null)}
        title="Remove member?"
        description={toRemove ? `${toRemove.email} loses access to this workspace immediately. Their seat becomes free.` : undefined}
        confirmLabel="Remove member"
        loading={remove.isPending}
        onConfirm={() => toRemove && remove.mutate(toRemove)}
      />
    </Page>
  );
}

/** /app/settings/workspace-invites: pending invitations and the invite dialog. */
export function WorkspaceInvitesPage() {
  const { isAdmin } = useWorkspaceRole();
  const { allowed: canInvite, isPending } = useAdminOrDuty(DUTIES.invite);
  const [inviteOpen, setInviteOpen] = useState(false);
  return (
    <Page
      title="Workspace invitations"
      description="Invite people by email and follow the invitations that are still open."
      actions={
        canInvite && (
          <Button onClick={() => setInviteOpen(true)}>
            <PlusIcon size={16} /> Invite members
          </Button>
        )
      }
    >
      {canInvite ? <PendingInvites /> : !isPending && <AdminOnlyNoticeInline />}
      <InviteDialog open={inviteOpen} onOpenChange={setInviteOpen} editorsOnly={!isAdmin} />
    </Page>
  );
}

function AdminOnlyNoticeInline() {
  return (
    <p role="status" className="rounded-2xl border border-gray-200 p-6 text-sm text-gray-700 dark:border-gray-800 dark:text-gray-300">
      Only workspace admins can invite people or see pending invitations.
    </p>
  );
}
