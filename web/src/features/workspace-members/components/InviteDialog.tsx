import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { FieldError, Select, TextArea, TextField } from '@/components/Field';
import { cn } from '@/components/cn';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { toast } from '@/lib/toast';
import { invitesQueryKey, inviteMember, inviteMembers, isEmail, parseEmails, seatsQueryKey, type SeatType } from '../api';

type Mode = 'single' | 'bulk';

export function InviteDialog({
  open,
  onOpenChange,
  editorsOnly = false,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Delegates (not admins) may invite editors only. */
  editorsOnly?: boolean;
}) {
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<Mode>('single');
  const [email, setEmail] = useState('');
  const [bulk, setBulk] = useState('');
  const [seat, setSeat] = useState<SeatType>('workspace_member');
  const [error, setError] = useState<string | undefined>();

  const reset = () => {
    setEmail('');
    setBulk('');
    setSeat('workspace_member');
    setError(undefined);
  };
  const close = (next: boolean) => {
    onOpenChange(next);
    if (!next) reset();
  };

  const mutation = useMutation({
    mutationFn: (emails: string[]) => (emails.length === 1 && mode === 'single' ? inviteMember(emails[0]!, seat) : inviteMembers(emails, seat)),
    onSuccess: (_data, emails) => {
      toast.success(emails.length === 1 ? `Invitation sent to ${emails[0]}.` : `${emails.length} invitations sent.`);
      void queryClient.invalidateQueries({ queryKey: invitesQueryKey });
      void queryClient.invalidateQueries({ queryKey: seatsQueryKey });
      close(false);
    },
    onError: (err) => {
      if (err instanceof ApiError && err.status < 500) setError(err.message);
      else toast.error(httpErrorMessage(err));
    },
  });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (mode === 'single') {
      const trimmed = email.trim();
      if (!isEmail(trimmed)) return setError('Please enter a valid email address.');
      mutation.mutate([trimmed.toLowerCase()]);
      return;
    }
    const { valid, invalid } = parseEmails(bulk);
    if (invalid.length > 0) return setError(`Not an email address: ${invalid.join(', ')}`);
    if (valid.length === 0) return setError('Please enter at least one email address.');
    mutation.mutate(valid);
  };

  const tab = (m: Mode, label: string) => (
    <button
      type="button"
      role="tab"
      aria-selected={mode === m}
      onClick={() => {
        setMode(m);
        setError(undefined);
      }}
      className={cn(
        'flex-1 cursor-pointer rounded-md px-3 py-1.5 text-sm font-medium',
        mode === m ? 'bg-white shadow-sm dark:bg-gray-700' : 'text-gray-600 dark:text-gray-400',
      )}
    >
      {label}
    </button>
  );

  return (
    <Dialog open={open} onOpenChange={close} title="Invite members" description="They get an email with a link to join this workspace.">
      <form onSubmit={onSubmit} noValidate className="space-y-5">
        <div role="tablist" aria-label="Invite mode" className="flex gap-1 rounded-lg bg-gray-100 p-1 dark:bg-gray-800">
          {tab('single', 'One person')}
          {tab('bulk', 'Several people')}
        </div>
        {mode === 'single' ? (
          <TextField
            label="Email"
            type="email"
            value={email}
            autoFocus
            onChange={(e) => {
              setEmail(e.target.value);
              setError(undefined);
            }}
            placeholder="name@example.com"
            error={error}
          />
        ) : (
          <div>
            <label htmlFor="bulk-emails" className="mb-1.5 block text-sm font-medium">
              Emails
            </label>
            <TextArea
              id="bulk-emails"
              rows={5}
              value={bulk}
              aria-invalid={error ? true : undefined}
              onChange={(e) => {
                setBulk(e.target.value);
                setError(undefined);
              }}
              placeholder={'ada@example.com, grace@example.com\nor one per line'}
            />
            <p className="mt-1.5 text-xs text-gray-500">
              {parseEmails(bulk).valid.length} address{parseEmails(bulk).valid.length === 1 ? '' : 'es'}
            </p>
            <FieldError>{error}</FieldError>
          </div>
        )}
        <div>
          <label htmlFor="invite-role" className="mb-1.5 block text-sm font-medium">
            Role
          </label>
          <Select id="invite-role" value={seat} onChange={(e) => setSeat(e.target.value as SeatType)}>
            <option value="workspace_member">Editor</option>
            {!editorsOnly && <option value="workspace_admin">Admin</option>}
          </Select>
        </div>
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => close(false)}>
            Cancel
          </Button>
          <Button type="submit" loading={mutation.isPending}>
            Send invite{mode === 'bulk' ? 's' : ''}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
