import { Page } from '@/components/Page';
import { Spinner } from '@/components/Spinner';
import { httpErrorMessage } from '@/lib/api';
import { formatDate, formatNumber } from '@/lib/format';
import { creditsRemaining, tierName, useSubscription } from '../api';
import { UsageChart } from './UsageChart';
import { ProgressBar } from './UsageMeter';

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="rounded-xl border border-gray-200 p-4 dark:border-gray-800">
      <dt className="text-xs font-medium text-gray-500 uppercase">{label}</dt>
      <dd className="mt-1 text-xl font-semibold tabular-nums">{value}</dd>
    </div>
  );
}

/** The plan's allowance and usage over time; workspace opens the chart on the whole workspace (admins). */
export function UsagePage({ workspace = false }: { workspace?: boolean }) {
  const { data, isPending, error } = useSubscription();
  return (
    <Page
      title="Usage"
      description="Credits used this billing period. Text to speech costs one credit per character, times the model’s cost factor: half on the Flash and Turbo models."
    >
      {isPending && (
        <div className="flex items-center gap-2 text-sm text-gray-500">
          <Spinner /> Loading usage…
        </div>
      )}
      {error && (
        <p role="alert" className="text-sm text-red-600">
          {httpErrorMessage(error)}
        </p>
      )}
      {data && (
        <section className="space-y-6">
          <div className="rounded-2xl border border-gray-200 p-6 dark:border-gray-800">
            <div className="mb-4 flex flex-wrap items-baseline justify-between gap-2">
              <h2 className="text-lg font-semibold">{tierName(data.tier)} plan</h2>
              {data.status && <span className="text-sm text-gray-500 capitalize">{data.status.replace(/_/g, ' ')}</span>}
            </div>
            {data.character_limit >= 0 ? (
              <>
                <ProgressBar value={data.character_count} max={data.character_limit} label="Characters used" />
                <p className="mt-2 text-sm" data-testid="usage-summary">
                  <strong>{formatNumber(data.character_count)}</strong> of {formatNumber(data.character_limit)} characters used
                </p>
              </>
            ) : (
              <p className="text-sm">
                <strong>{formatNumber(data.character_count)}</strong> characters used · unlimited
              </p>
            )}
          </div>
          <dl className="grid gap-4 sm:grid-cols-3">
            <Stat label="Used" value={formatNumber(data.character_count)} />
            <Stat
              label="Remaining"
              value={data.character_limit < 0 ? 'Unlimited' : formatNumber(creditsRemaining(data) ?? 0)}
            />
            <Stat
              label="Resets"
              value={data.next_character_count_reset_unix ? formatDate(data.next_character_count_reset_unix) : '—'}
            />
          </dl>
        </section>
      )}
      <div className="mt-6">
        <UsageChart workspace={workspace} />
      </div>
    </Page>
  );
}
