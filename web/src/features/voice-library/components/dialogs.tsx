import { useState } from 'react';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { FieldError, TextArea, TextField } from '@/components/Field';
import { httpErrorMessage } from '@/lib/api';
import type { LibraryVoice, ShareSettings } from '../api';

export const MAX_NAME_CHARS = 100;
export const MAX_DESCRIPTION_CHARS = 1000;
export const MAX_NOTICE_DAYS = 730;

/** Asks for the name a library voice gets in the workspace. */
export function AddVoiceDialog({
  voice,
  onClose,
  onAdd,
  pending,
  error,
}: {
  voice: LibraryVoice | null;
  onClose: () => void;
  onAdd: (name: string) => void;
  pending: boolean;
  error: unknown;
}) {
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const value = touched ? name : (voice?.name ?? '');
  const problem = value.trim() === '' ? 'Give the voice a name.' : value.length > MAX_NAME_CHARS ? `At most ${MAX_NAME_CHARS} characters.` : undefined;
  return (
    <Dialog
      open={voice !== null}
      onOpenChange={(o) => {
        if (!o) {
          setTouched(false);
          onClose();
        }
      }}
      title="Add to my voices"
      description={voice ? `A copy of “${voice.name}” joins your workspace's voices and takes one voice slot.` : undefined}
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!problem) onAdd(value.trim());
        }}
        className="space-y-4"
      >
        <TextField
          label="Name"
          value={value}
          onChange={(e) => {
            setTouched(true);
            setName(e.target.value);
          }}
          error={touched ? problem : undefined}
          maxLength={MAX_NAME_CHARS + 10}
        />
        {error ? <FieldError>{httpErrorMessage(error)}</FieldError> : null}
        <div className="flex justify-end gap-2">
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={pending} disabled={!!problem}>
            Add voice
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

/** Validates the sharing settings the way the server does (internal/voice/library.go). */
export function checkShare(s: ShareSettings): string | undefined {
  if ((s.description ?? '').length > MAX_DESCRIPTION_CHARS) return `The description is longer than ${MAX_DESCRIPTION_CHARS} characters.`;
  const n = s.notice_period ?? 0;
  if (!Number.isInteger(n) || n < 0 || n > MAX_NOTICE_DAYS) return `The notice period is a number of days from 0 to ${MAX_NOTICE_DAYS}.`;
  return undefined;
}

/** The sharing settings of one of the workspace's voices. */
export function ShareDialog({
  voiceName,
  initial,
  open,
  onClose,
  onSave,
  pending,
  error,
}: {
  voiceName: string;
  initial: ShareSettings;
  open: boolean;
  onClose: () => void;
  onSave: (s: ShareSettings) => void;
  pending: boolean;
  error: unknown;
}) {
  const [s, setS] = useState<ShareSettings>(initial);
  const problem = checkShare(s);
  const box = (key: 'enabled' | 'free_users_allowed' | 'live_moderation_enabled', label: string) => (
    <label className="flex items-center gap-2 text-sm">
      <input type="checkbox" checked={!!s[key]} onChange={(e) => setS({ ...s, [key]: e.target.checked })} />
      {label}
    </label>
  );
  return (
    <Dialog open={open} onOpenChange={(o) => !o && onClose()} title={`Share “${voiceName}” to the library`}
      description="Other workspaces can find the voice and add a copy. They see its name, labels and this description, never your workspace.">
      <form
        className="space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          if (!problem) onSave(s);
        }}
      >
        {box('enabled', 'Listed in the voice library')}
        <div>
          <label htmlFor="share-description" className="mb-1.5 block text-sm font-medium">
            Description
          </label>
          <TextArea id="share-description" rows={3} value={s.description ?? ''} onChange={(e) => setS({ ...s, description: e.target.value })} />
        </div>
        {box('free_users_allowed', 'Free plans may add it')}
        {box('live_moderation_enabled', 'Live moderation')}
        <TextField
          label="Notice period (days)"
          type="number"
          min={0}
          max={MAX_NOTICE_DAYS}
          value={String(s.notice_period ?? 0)}
          onChange={(e) => setS({ ...s, notice_period: Number(e.target.value) })}
          hint="How long copies keep working after you withdraw the voice."
        />
        <FieldError>{problem ?? (error ? httpErrorMessage(error) : undefined)}</FieldError>
        <div className="flex justify-end gap-2">
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={pending} disabled={!!problem}>
            Save
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
