import { BadgeList } from '@/components/Badge';
import { permissionLabel } from '@/lib/api-key-form';

/** Enable/disable switch for a key row. */
export function KeyEnabledSwitch({ enabled, name, pending, onChange }: { enabled: boolean; name: string; pending?: boolean; onChange: (on: boolean) => void }) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={enabled}
      aria-label={`${name} enabled`}
      disabled={pending}
      onClick={() => onChange(!enabled)}
      className={`relative inline-flex h-5 w-9 shrink-0 cursor-pointer items-center rounded-full transition-colors disabled:opacity-50 ${enabled ? 'bg-emerald-600' : 'bg-gray-300 dark:bg-gray-700'}`}
    >
      <span className={`inline-block size-4 rounded-full bg-white shadow transition-transform ${enabled ? 'translate-x-4.5' : 'translate-x-0.5'}`} />
    </button>
  );
}

export function PermissionsCell({ permissions }: { permissions: string[] | null | undefined }) {
  if (!permissions) return <span className="text-gray-600 dark:text-gray-400">All</span>;
  return <BadgeList items={permissions.map(permissionLabel)} max={2} />;
}
