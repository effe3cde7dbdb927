import type { ReactNode } from 'react';
import { cn } from '@/components/cn';
import { AlertIcon } from '@/components/icons';
import { Spinner } from '@/components/Spinner';
import { httpErrorMessage } from '@/lib/api';

/** A titled section in a bordered card. */
export function Panel({
  title,
  description,
  actions,
  children,
  className,
}: {
  title?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section className={cn('overflow-hidden rounded-2xl border border-gray-200 dark:border-gray-800', className)}>
      {(title || actions) && (
        <div className="flex flex-wrap items-start justify-between gap-3 border-b border-gray-200 px-4 py-3 dark:border-gray-800">
          <div className="min-w-0">
            {title && <h2 className="text-base font-semibold">{title}</h2>}
            {description && <p className="mt-0.5 text-sm text-gray-600 dark:text-gray-400">{description}</p>}
          </div>
          {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
        </div>
      )}
      {children}
    </section>
  );
}

/** Loading / error / empty states for a query-backed block. */
export function QueryState({
  pending,
  error,
  empty,
  emptyText,
  loadingText = 'Loading…',
}: {
  pending: boolean;
  error: unknown;
  empty?: boolean;
  emptyText?: ReactNode;
  loadingText?: string;
}) {
  if (pending)
    return (
      <div className="flex items-center gap-2 p-6 text-sm text-gray-500">
        <Spinner /> {loadingText}
      </div>
    );
  if (error)
    return (
      <p role="alert" className="p-6 text-sm text-red-600">
        {httpErrorMessage(error)}
      </p>
    );
  if (empty) return <p className="p-8 text-center text-sm text-gray-500">{emptyText}</p>;
  return null;
}

/** Notice shown to editors on admin-only screens. */
export function AdminOnlyNotice({ what }: { what: string }) {
  return (
    <div role="status" className="flex gap-3 rounded-2xl border border-gray-200 p-6 text-sm text-gray-700 dark:border-gray-800 dark:text-gray-300">
      <AlertIcon size={18} className="shrink-0 text-gray-500" />
      <p>Only workspace admins can manage {what}. Ask an admin of this workspace if something needs to change.</p>
    </div>
  );
}

/** Accessible on/off switch (a checkbox with role="switch"). */
export function Switch({
  checked,
  onChange,
  label,
  disabled,
  id,
  describedBy,
}: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  label: string;
  disabled?: boolean;
  id?: string;
  describedBy?: string;
}) {
  return (
    <button
      type="button"
      role="switch"
      id={id}
      aria-checked={checked}
      aria-label={label}
      aria-describedby={describedBy}
      disabled={disabled}
      onClick={() => onChange(!checked)}
      className={cn(
        'relative inline-flex h-6 w-11 shrink-0 cursor-pointer items-center rounded-full transition-colors focus-visible:ring-2 focus-visible:ring-gray-900/30 focus-visible:outline-none disabled:cursor-not-allowed disabled:opacity-50',
        checked ? 'bg-gray-900 dark:bg-white' : 'bg-gray-300 dark:bg-gray-700',
      )}
    >
      <span
        className={cn(
          'inline-block size-5 rounded-full bg-white shadow transition-transform dark:bg-gray-900',
          checked ? 'translate-x-5.5' : 'translate-x-0.5',
        )}
      />
    </button>
  );
}

export const tableClass = 'w-full text-left text-sm';
export const theadClass = 'bg-gray-50 text-xs text-gray-500 uppercase dark:bg-gray-900';
export const thClass = 'px-4 py-3 font-medium';
export const tdClass = 'px-4 py-3';
export const trClass = 'border-t border-gray-100 dark:border-gray-800';

/** Status pill. */
export function Pill({ tone = 'gray', children }: { tone?: 'gray' | 'green' | 'red' | 'amber' | 'blue'; children: ReactNode }) {
  const tones = {
    gray: 'bg-gray-100 text-gray-700 dark:bg-gray-800 dark:text-gray-300',
    green: 'bg-emerald-50 text-emerald-700 dark:bg-emerald-950 dark:text-emerald-300',
    red: 'bg-red-50 text-red-700 dark:bg-red-950 dark:text-red-300',
    amber: 'bg-amber-50 text-amber-800 dark:bg-amber-950 dark:text-amber-200',
    blue: 'bg-blue-50 text-blue-700 dark:bg-blue-950 dark:text-blue-300',
  };
  return <span className={cn('inline-flex items-center rounded-md px-1.5 py-0.5 text-xs font-medium whitespace-nowrap', tones[tone])}>{children}</span>;
}

/** Copyable one-time secret with the "shown once" warning. */
export function SecretOnce({ label, value, testId, onCopy }: { label: string; value: string; testId?: string; onCopy?: () => void }) {
  return (
    <div>
      <div className="mb-4 flex gap-2 rounded-lg bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100" role="alert">
        <AlertIcon size={18} className="shrink-0" />
        <span>This {label} will not be shown again. Copy it now and keep it somewhere safe.</span>
      </div>
      <div className="flex items-center gap-2 rounded-xl border border-gray-200 bg-gray-50 p-2 pl-3 dark:border-gray-700 dark:bg-gray-950">
        <code data-testid={testId} className="min-w-0 flex-1 font-mono text-sm break-all select-all">
          {value}
        </code>
        {onCopy && (
          <button
            type="button"
            onClick={onCopy}
            className="h-8 cursor-pointer rounded-lg bg-gray-900 px-3 text-sm font-medium text-white hover:bg-gray-800 dark:bg-white dark:text-gray-900"
          >
            Copy
          </button>
        )}
      </div>
    </div>
  );
}

export async function copyText(text: string, what: string, toastFns: { success: (m: string) => void; error: (m: string) => void }) {
  try {
    await navigator.clipboard.writeText(text);
    toastFns.success(`${what} copied to clipboard`);
  } catch {
    toastFns.error(`Could not copy the ${what.toLowerCase()}. Please select it and copy it manually.`);
  }
}
