import { Link } from 'react-router';
import { formatNumber } from '@/lib/format';
import { tierName, useSubscription } from '../api';

export function ProgressBar({ value, max, label }: { value: number; max: number; label: string }) {
  const pct = max > 0 ? Math.min(100, (value / max) * 100) : 0;
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={value}
      className="h-1.5 w-full overflow-hidden rounded-full bg-gray-200 dark:bg-gray-800"
    >
      <div
        className={pct >= 90 ? 'h-full bg-red-500' : 'h-full bg-gray-900 dark:bg-white'}
        style={{ width: `${pct}%` }}
      />
    </div>
  );
}

/** Compact usage meter for the sidebar. */
export function UsageMeter() {
  const { data } = useSubscription();
  if (!data) return null;
  const unlimited = data.character_limit < 0;
  return (
    <Link
      to="/app/usage"
      className="block rounded-xl border border-gray-200 p-3 text-xs hover:bg-gray-50 dark:border-gray-800 dark:hover:bg-gray-900"
    >
      <div className="mb-2 flex items-center justify-between">
        <span className="font-medium text-gray-900 dark:text-gray-100">{tierName(data.tier)} plan</span>
        <span className="text-gray-500">Credits</span>
      </div>
      {unlimited ? (
        <p className="text-gray-500">{formatNumber(data.character_count)} used · unlimited</p>
      ) : (
        <>
          <ProgressBar value={data.character_count} max={data.character_limit} label="Credits used" />
          <p className="mt-1.5 text-gray-500" data-testid="usage-meter">
            {formatNumber(data.character_count)} / {formatNumber(data.character_limit)}
          </p>
        </>
      )}
    </Link>
  );
}
