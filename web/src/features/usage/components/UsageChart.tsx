import { useId, useState, type ReactNode } from 'react';
import { Select } from '@/components/Field';
import { Spinner } from '@/components/Spinner';
import { httpErrorMessage } from '@/lib/api';
import { useWorkspaceRole } from '@/lib/access/role';
import { formatNumber } from '@/lib/format';
import {
  useSeriesNames,
  useUsageStats,
  type UsageBreakdown,
  type UsageMetric,
  type UsageQuery,
  type UsageRange,
  type UsageStats,
} from '../api';

const RANGES: Array<{ id: UsageRange; label: string }> = [
  { id: '7d', label: 'Last 7 days' },
  { id: '30d', label: 'Last 30 days' },
  { id: '90d', label: 'Last 90 days' },
  { id: '12m', label: 'Last 12 months' },
];

const METRICS: Array<{ id: UsageMetric; label: string; unit: string }> = [
  { id: 'credits', label: 'Credits', unit: 'credits' },
  { id: 'tts_characters', label: 'Characters (text to speech)', unit: 'characters' },
  { id: 'request_count', label: 'Requests', unit: 'requests' },
];

const BREAKDOWNS: Array<{ id: UsageBreakdown; label: string; workspaceOnly?: boolean }> = [
  { id: 'none', label: 'None' },
  { id: 'product_type', label: 'Product' },
  { id: 'voice', label: 'Voice' },
  { id: 'model', label: 'Model' },
  { id: 'api_keys', label: 'API key' },
  { id: 'user', label: 'Member', workspaceOnly: true },
];

// Series beyond the first MAX_SERIES - 1 (by total) are summed into "Other", so colours stay
// distinguishable.
const MAX_SERIES = 8;
const COLORS = ['#4f46e5', '#0891b2', '#16a34a', '#ca8a04', '#dc2626', '#9333ea', '#db2777', '#6b7280'];

export interface ChartSeries {
  id: string;
  name: string;
  values: number[];
  total: number;
}

/**
 * The response's series, named, largest total first, with the smallest folded into "Other"
 * beyond MAX_SERIES; series with no usage in the window are left out.
 */
export function chartSeries(stats: UsageStats, names: Map<string, string>): ChartSeries[] {
  const all = Object.entries(stats.usage)
    .map(([id, values]) => ({ id, name: id === 'All' ? 'All' : (names.get(id) ?? (id || 'Unknown')), values, total: values.reduce((a, b) => a + b, 0) }))
    .filter((s) => s.total > 0)
    .sort((a, b) => b.total - a.total || a.name.localeCompare(b.name));
  if (all.length <= MAX_SERIES) return all;
  const kept = all.slice(0, MAX_SERIES - 1);
  const rest = all.slice(MAX_SERIES - 1);
  const values = stats.time.map((_, i) => rest.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  return [...kept, { id: '__other', name: `Other (${rest.length})`, values, total: values.reduce((a, b) => a + b, 0) }];
}

/** A round axis maximum at or above max (1, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten), so the quarter gridlines fall on readable values. */
export function niceMax(max: number): number {
  if (max <= 4) return 4; // whole units: 1, 2, 3, 4
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 3, 4, 5, 6, 8]) if (m * p >= max) return m * p;
  return 10 * p;
}

function bucketLabel(ms: number, monthly: boolean): string {
  return new Intl.DateTimeFormat('en-US', monthly ? { month: 'short', year: '2-digit', timeZone: 'UTC' } : { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(
    new Date(ms),
  );
}

const W = 720;
const H = 240;
const PAD = { left: 56, right: 8, top: 8, bottom: 28 };

function Bars({ stats, series, unit, monthly }: { stats: UsageStats; series: ChartSeries[]; unit: string; monthly: boolean }) {
  const n = stats.time.length;
  const totals = stats.time.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const top = niceMax(Math.max(0, ...totals));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, n);
  const barW = Math.max(1, slot * 0.7);
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  const labelEvery = Math.max(1, Math.ceil(n / 8));
  const grand = totals.reduce((a, b) => a + b, 0);
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="h-auto w-full" role="img" aria-label={`${formatNumber(grand)} ${unit} in ${n} ${monthly ? 'months' : 'days'}`}>
      {[0, 0.25, 0.5, 0.75, 1].map((f) => (
        <g key={f}>
          <line x1={PAD.left} x2={W - PAD.right} y1={y(top * f)} y2={y(top * f)} className="stroke-gray-200 dark:stroke-gray-800" strokeWidth={1} />
          <text x={PAD.left - 6} y={y(top * f) + 4} textAnchor="end" className="fill-gray-500 text-[11px]">
            {formatNumber(top * f)}
          </text>
        </g>
      ))}
      {stats.time.map((t, i) => {
        let base = 0;
        const x = PAD.left + i * slot + (slot - barW) / 2;
        return (
          <g key={t}>
            {series.map((s, k) => {
              const v = s.values[i] ?? 0;
              if (v <= 0) return null;
              const rect = (
                <rect key={s.id} x={x} width={barW} y={y(base + v)} height={y(base) - y(base + v)} fill={COLORS[k % COLORS.length]}>
                  <title>{`${bucketLabel(t, monthly)} · ${s.name}: ${formatNumber(v)} ${unit}`}</title>
                </rect>
              );
              base += v;
              return rect;
            })}
            {i % labelEvery === 0 && (
              <text x={PAD.left + i * slot + slot / 2} y={H - 8} textAnchor="middle" className="fill-gray-500 text-[11px]">
                {bucketLabel(t, monthly)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

/** Usage over time from the metering ledger (GET /v1/usage/character-stats), as stacked bars. */
export function UsageChart({ workspace: initialWorkspace = false }: { workspace?: boolean }) {
  const id = useId();
  const { isAdmin, isPending: rolePending } = useWorkspaceRole();
  const [q, setQ] = useState<UsageQuery>({ range: '30d', breakdown: 'product_type', metric: 'credits', workspace: initialWorkspace });
  const workspace = q.workspace && isAdmin;
  const query: UsageQuery = { ...q, workspace, breakdown: q.breakdown === 'user' && !workspace ? 'none' : q.breakdown };
  // Opened on the workspace's usage: wait to know whether the caller may read it.
  const stats = useUsageStats(query, !(q.workspace && rolePending));
  const names = useSeriesNames(query.breakdown);
  const metric = METRICS.find((m) => m.id === query.metric)!;
  const monthly = query.range === '12m';
  const series = stats.data ? chartSeries(stats.data, names) : [];
  const field = (key: string, label: string, control: ReactNode) => (
    <div>
      <label htmlFor={`${id}-${key}`} className="mb-1.5 block text-sm font-medium">
        {label}
      </label>
      {control}
    </div>
  );
  return (
    <section aria-labelledby={`${id}-title`} className="rounded-2xl border border-gray-200 p-6 dark:border-gray-800">
      <h2 id={`${id}-title`} className="mb-4 text-lg font-semibold">
        Usage over time
      </h2>
      <div className="mb-4 grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        {field(
          'range',
          'Period',
          <Select id={`${id}-range`} value={q.range} onChange={(e) => setQ({ ...q, range: e.target.value as UsageRange })}>
            {RANGES.map((r) => (
              <option key={r.id} value={r.id}>
                {r.label}
              </option>
            ))}
          </Select>,
        )}
        {field(
          'metric',
          'Metric',
          <Select id={`${id}-metric`} value={q.metric} onChange={(e) => setQ({ ...q, metric: e.target.value as UsageMetric })}>
            {METRICS.map((m) => (
              <option key={m.id} value={m.id}>
                {m.label}
              </option>
            ))}
          </Select>,
        )}
        {field(
          'breakdown',
          'Break down by',
          <Select id={`${id}-breakdown`} value={query.breakdown} onChange={(e) => setQ({ ...q, breakdown: e.target.value as UsageBreakdown })}>
            {BREAKDOWNS.filter((b) => !b.workspaceOnly || workspace).map((b) => (
              <option key={b.id} value={b.id}>
                {b.label}
              </option>
            ))}
          </Select>,
        )}
        {isAdmin &&
          field(
            'scope',
            'Whose usage',
            <Select id={`${id}-scope`} value={workspace ? 'workspace' : 'me'} onChange={(e) => setQ({ ...q, workspace: e.target.value === 'workspace' })}>
              <option value="me">Only mine</option>
              <option value="workspace">The whole workspace</option>
            </Select>,
          )}
      </div>
      {stats.isPending && (
        <div className="flex items-center gap-2 text-sm text-gray-500">
          <Spinner /> Loading usage…
        </div>
      )}
      {stats.error && (
        <p role="alert" className="text-sm text-red-600">
          {httpErrorMessage(stats.error)}
        </p>
      )}
      {stats.data &&
        (series.length === 0 ? (
          <p className="text-sm text-gray-500">No usage in this period.</p>
        ) : (
          <>
            <Bars stats={stats.data} series={series} unit={metric.unit} monthly={monthly} />
            <table className="mt-4 w-full text-sm" aria-label="Totals for the period">
              <thead className="sr-only">
                <tr>
                  <th>Series</th>
                  <th>Total</th>
                </tr>
              </thead>
              <tbody>
                {series.map((s, k) => (
                  <tr key={s.id} className="border-t border-gray-100 dark:border-gray-800">
                    <td className="py-1.5">
                      <span className="mr-2 inline-block size-3 rounded-sm align-middle" style={{ background: COLORS[k % COLORS.length] }} aria-hidden />
                      {s.name}
                    </td>
                    <td className="py-1.5 text-right tabular-nums">
                      {formatNumber(s.total)} {metric.unit}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ))}
    </section>
  );
}
