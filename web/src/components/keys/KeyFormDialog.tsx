import { useEffect, useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { FieldError, TextField } from '@/components/Field';
import { AlertIcon, CopyIcon } from '@/components/icons';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { toast } from '@/lib/toast';
import { NAME_MAX, PERMISSIONS, permissionLabel, validateKeyForm, type KeyFormValue, type Permission } from '@/lib/api-key-form';

export interface KeyFormInitial {
  name: string;
  permissions: Permission[] | 'all';
  characterLimit: number | undefined;
}

const EMPTY: KeyFormInitial = { name: '', permissions: 'all', characterLimit: undefined };

/** Permission picker: "All permissions" or a checklist of the API's permission names. */
export function PermissionPicker({
  value,
  onChange,
  error,
}: {
  value: Permission[] | 'all';
  onChange: (v: Permission[] | 'all') => void;
  error?: string;
}) {
  const all = value === 'all';
  const picked = all ? [] : value;
  return (
    <fieldset>
      <legend className="mb-1.5 text-sm font-medium text-gray-800 dark:text-gray-200">Permissions</legend>
      <div className="flex gap-4 text-sm">
        <label className="flex cursor-pointer items-center gap-2">
          <input type="radio" name="perm-mode" checked={all} onChange={() => onChange('all')} /> All permissions
        </label>
        <label className="flex cursor-pointer items-center gap-2">
          <input type="radio" name="perm-mode" checked={!all} onChange={() => onChange(picked.length ? picked : [])} /> Restrict to…
        </label>
      </div>
      {!all && (
        <div
          role="group"
          aria-label="Allowed permissions"
          className="mt-2 grid max-h-52 grid-cols-1 gap-x-4 gap-y-1 overflow-y-auto rounded-lg border border-gray-200 p-3 text-sm sm:grid-cols-2 dark:border-gray-700"
        >
          {PERMISSIONS.map((p) => (
            <label key={p} className="flex cursor-pointer items-center gap-2">
              <input
                type="checkbox"
                checked={picked.includes(p)}
                onChange={(e) => onChange(e.target.checked ? [...picked, p] : picked.filter((x) => x !== p))}
              />
              <span>{permissionLabel(p)}</span>
            </label>
          ))}
        </div>
      )}
      <FieldError>{error}</FieldError>
    </fieldset>
  );
}

/**
 * Create or edit a key: name, permissions, optional character quota. When `onSubmit`
 * resolves to a secret, the dialog shows it once instead of closing.
 */
export function KeyFormDialog({
  open,
  onOpenChange,
  title,
  submitLabel,
  initial = EMPTY,
  onSubmit,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  submitLabel: string;
  initial?: KeyFormInitial;
  onSubmit: (value: KeyFormValue) => Promise<{ secret?: string; name?: string } | void>;
}) {
  const [name, setName] = useState(initial.name);
  const [perms, setPerms] = useState<Permission[] | 'all'>(initial.permissions);
  const [limit, setLimit] = useState(initial.characterLimit === undefined ? '' : String(initial.characterLimit));
  const [errors, setErrors] = useState<{ name?: string; permissions?: string; limit?: string }>({});
  const [pending, setPending] = useState(false);
  const [created, setCreated] = useState<{ secret: string; name: string } | null>(null);

  useEffect(() => {
    if (open) {
      setName(initial.name);
      setPerms(initial.permissions);
      setLimit(initial.characterLimit === undefined ? '' : String(initial.characterLimit));
      setErrors({});
      setCreated(null);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateKeyForm(name, perms, limit);
    setErrors(found);
    if (Object.keys(found).length) return;
    setPending(true);
    try {
      const result = await onSubmit({
        name: name.trim(),
        permissions: perms,
        characterLimit: limit.trim() === '' ? undefined : Number(limit.trim()),
      });
      if (result && result.secret) setCreated({ secret: result.secret, name: result.name ?? name.trim() });
      else onOpenChange(false);
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) setErrors({ name: err.message });
      else toast.error(httpErrorMessage(err));
    } finally {
      setPending(false);
    }
  };

  if (created) {
    return (
      <Dialog open={open} onOpenChange={onOpenChange} title="API key created" description={`“${created.name}”`}>
        <div className="mb-4 flex gap-2 rounded-lg bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100" role="alert">
          <AlertIcon size={18} className="shrink-0" />
          <span>This key will not be shown again. Copy it now and keep it somewhere safe.</span>
        </div>
        <div className="flex items-center gap-2 rounded-xl border border-gray-200 bg-gray-50 p-2 pl-3 dark:border-gray-700 dark:bg-gray-950">
          <code data-testid="new-api-key" className="min-w-0 flex-1 font-mono text-sm break-all select-all">
            {created.secret}
          </code>
          <Button
            size="sm"
            onClick={() =>
              void navigator.clipboard.writeText(created.secret).then(
                () => toast.success('API key copied to clipboard'),
                () => toast.error('Could not copy the key. Please select it and copy it manually.'),
              )
            }
          >
            <CopyIcon size={14} /> Copy
          </Button>
        </div>
        <div className="mt-6 flex justify-end">
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Done
          </Button>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={title} className="max-w-xl">
      <form onSubmit={(e) => void submit(e)} noValidate className="space-y-5">
        <TextField
          label="Name"
          value={name}
          maxLength={NAME_MAX}
          onChange={(e) => {
            setName(e.target.value);
            setErrors((x) => ({ ...x, name: undefined }));
          }}
          placeholder="e.g. Production server"
          error={errors.name}
          autoFocus
        />
        <PermissionPicker
          value={perms}
          onChange={(v) => {
            setPerms(v);
            setErrors((x) => ({ ...x, permissions: undefined }));
          }}
          error={errors.permissions}
        />
        <TextField
          label="Character limit (optional)"
          inputMode="numeric"
          value={limit}
          onChange={(e) => {
            setLimit(e.target.value);
            setErrors((x) => ({ ...x, limit: undefined }));
          }}
          placeholder="No limit"
          hint="The most characters this key may convert. Leave empty for no limit."
          error={errors.limit}
        />
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" loading={pending}>
            {submitLabel}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

/** "1,234 / 10,000" or "1,234 used · no limit". */
export function quotaText(count: number | null | undefined, limit: number | null | undefined): string {
  const used = new Intl.NumberFormat('en-US').format(count ?? 0);
  if (limit === null || limit === undefined) return `${used} · no limit`;
  return `${used} / ${new Intl.NumberFormat('en-US').format(limit)}`;
}
