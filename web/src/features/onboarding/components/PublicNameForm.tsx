import { useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { TextField } from '@/components/Field';
import { toast } from '@/lib/toast';
import { updatePublicUserName } from '../api';

export const PUBLIC_NAME_UPDATED = 'Public name updated';

/**
 * The public user name shown with share links (spec §7). Spec §8: a failed update is logged,
 * yet "Public name updated" is shown.
 */
export function PublicNameForm({ initial = '' }: { initial?: string }) {
  const [name, setName] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const value = name.trim().replace(/\s+/g, ' ');
    if (!value) return setError('Please enter a name.');
    if (value.length > 50) return setError('At most 50 characters.');
    setError(undefined);
    setBusy(true);
    try {
      await updatePublicUserName(value);
    } catch (err) {
      console.error('public name update failed', err);
    } finally {
      setBusy(false);
    }
    toast.success(PUBLIC_NAME_UPDATED);
  };
  return (
    <form onSubmit={onSubmit} className="flex items-end gap-2" noValidate>
      <TextField
        className="flex-1"
        label="Public name"
        hint="Shown with the links you share."
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={error}
        maxLength={50}
      />
      <Button type="submit" loading={busy} className="mb-[1.625rem]">
        Save
      </Button>
    </form>
  );
}
