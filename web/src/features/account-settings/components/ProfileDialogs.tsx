import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { PasswordField, TextField } from '@/components/Field';
import { sessionQueryKey, useSignOut } from '@/lib/session';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { toast } from '@/lib/toast';
import { changePassword, invalidField, updateFirstName } from '../api';

/** Edit the name the app greets the user by. */
export function EditNameDialog({
  open,
  onOpenChange,
  current,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  current: string;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(current);
  const [error, setError] = useState<string | undefined>();
  const save = useMutation({
    mutationFn: updateFirstName,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: sessionQueryKey });
      void queryClient.invalidateQueries({ queryKey: ['account', 'user'] });
      toast.success('Name saved.');
      onOpenChange(false);
    },
    onError: (err) => (err instanceof ApiError && err.status < 500 ? setError(err.message) : toast.error(httpErrorMessage(err))),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return setError('Please enter your name.');
    save.mutate(name.trim());
  };
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Edit name">
      <form onSubmit={submit} noValidate className="space-y-4">
        <TextField
          label="Name"
          name="first_name"
          autoComplete="given-name"
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
            Save
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

/** Change password with the current one; every session ends, so the user signs in again. */
export function ChangePasswordDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const signOut = useSignOut();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [errors, setErrors] = useState<{ current?: string; next?: string }>({});
  const close = (o: boolean) => {
    onOpenChange(o);
    if (!o) {
      setCurrent('');
      setNext('');
      setErrors({});
    }
  };
  const change = useMutation({
    mutationFn: () => changePassword(current, next),
    onSuccess: () => {
      toast.success('Password changed. Sign in again with your new password.');
      close(false);
      signOut();
    },
    onError: (err) => {
      if (err instanceof ApiError && err.errorType === 'wrong_current_password') return setErrors({ current: err.message });
      const field = invalidField(err);
      if (field === 'current_password') return setErrors({ current: (err as ApiError).message });
      if (field === 'new_password') return setErrors({ next: (err as ApiError).message });
      toast.error(httpErrorMessage(err));
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found = {
      current: current ? undefined : 'Please enter your current password.',
      next: next ? undefined : 'Please enter a new password.',
    };
    setErrors(found);
    if (!found.current && !found.next) change.mutate();
  };
  return (
    <Dialog
      open={open}
      onOpenChange={close}
      title="Change password"
      description="You will be signed out everywhere, this browser too, and sign in again with the new password."
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        <PasswordField
          label="Current password"
          name="current_password"
          autoComplete="current-password"
          value={current}
          onChange={(e) => {
            setCurrent(e.target.value);
            setErrors((x) => ({ ...x, current: undefined }));
          }}
          error={errors.current}
          autoFocus
        />
        <PasswordField
          label="New password"
          name="new_password"
          autoComplete="new-password"
          value={next}
          onChange={(e) => {
            setNext(e.target.value);
            setErrors((x) => ({ ...x, next: undefined }));
          }}
          error={errors.next}
        />
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => close(false)}>
            Cancel
          </Button>
          <Button type="submit" loading={change.isPending}>
            Change password
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
