import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { usageWindow } from '../api';
import { chartSeries, niceMax, UsageChart } from './UsageChart';

afterEach(() => vi.unstubAllGlobals());

const DAY = 86_400_000;

describe('usage chart helpers', () => {
  it('asks for whole UTC days ending with today, and months for a year', () => {
    const now = Date.UTC(2026, 10, 25, 15, 30); // 25 Nov 2026, 15:30 UTC
    expect(usageWindow('7d', now)).toEqual({ start: Date.UTC(2026, 10, 19), end: Date.UTC(2026, 10, 26), interval: 'day' });
    expect(usageWindow('30d', now).end - usageWindow('30d', now).start).toBe(30 * DAY);
    expect(usageWindow('12m', now)).toEqual({ start: Date.UTC(2025, 11, 1), end: Date.UTC(2026, 10, 26), interval: 'month' });
  });

  it('names series, drops empty ones, sorts by total and folds the smallest into Other', () => {
    const time = [0, DAY];
    const usage: Record<string, number[]> = { v1: [5, 5], v2: [0, 0], '': [1, 0] };
    for (let i = 0; i < 9; i++) usage[`x${i}`] = [i + 1, 0];
    const series = chartSeries({ time, usage }, new Map([['v1', 'Rachel'], ['', 'No voice']]));
    expect(series).toHaveLength(8);
    expect(series[0]).toMatchObject({ id: 'v1', name: 'Rachel', total: 10 });
    expect(series.map((s) => s.id)).not.toContain('v2');
    // Kept: v1 and x8…x3 (totals 10, 9…4); folded: x2, x1, x0 and the unnamed series (3+2+1+1).
    expect(series[7]).toMatchObject({ name: 'Other (4)', values: [7, 0], total: 7 });
  });

  it('rounds the axis up to a readable maximum', () => {
    expect(niceMax(0)).toBe(4);
    expect(niceMax(3)).toBe(4);
    expect(niceMax(276)).toBe(300);
    expect(niceMax(1_001)).toBe(2_000);
    expect(niceMax(7_400)).toBe(8_000);
  });
});

function serve(isAdmin: boolean) {
  return mockFetch({
    'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: isAdmin }),
    'GET /v1/usage/character-stats': ({ url }) => {
      const by = url.searchParams.get('breakdown_type');
      const usage: Record<string, number[]> =
        by === 'voice' ? { voice1: [0, 120, 30], '': [0, 0, 80] } : by === 'user' ? { u1: [10, 0, 0] } : { tts: [0, 120, 30], sfx: [0, 0, 80] };
      return jsonResponse({ time: [0, DAY, 2 * DAY], usage });
    },
    'GET /v1/voices': () => jsonResponse({ voices: [{ voice_id: 'voice1', name: 'Rachel' }] }),
    'GET /v1/workspace/members': () => jsonResponse([{ user_id: 'u1', email: 'ada@example.com', first_name: 'Ada' }]),
  });
}

describe('UsageChart', () => {
  it('shows the last 30 days by product, then by voice with voice names', async () => {
    const { calls } = serve(false);
    const user = userEvent.setup();
    renderWithProviders(<UsageChart />);
    const totals = await screen.findByRole('table', { name: 'Totals for the period' });
    expect(within(totals).getByText('Text to speech').closest('tr')).toHaveTextContent('150 credits');
    expect(within(totals).getByText('Sound effects').closest('tr')).toHaveTextContent('80 credits');
    const first = calls.find((c) => c.url.pathname === '/v1/usage/character-stats')!.url.searchParams;
    expect(first.get('breakdown_type')).toBe('product_type');
    expect(first.get('aggregation_interval')).toBe('day');
    expect(first.get('include_workspace_metrics')).toBe('false');
    expect(Number(first.get('end_unix')) - Number(first.get('start_unix'))).toBe(30 * DAY);
    expect(screen.getByRole('img')).toHaveAccessibleName('230 credits in 3 days');

    await user.selectOptions(screen.getByLabelText('Break down by'), 'voice');
    await waitFor(() => expect(screen.getByRole('table', { name: 'Totals for the period' })).toHaveTextContent('Rachel'));
    expect(screen.getByRole('table', { name: 'Totals for the period' })).toHaveTextContent('No voice');
    // Members are a workspace breakdown: not offered to a member viewing their own usage.
    expect(within(screen.getByLabelText('Break down by')).queryByRole('option', { name: 'Member' })).toBeNull();
    expect(screen.queryByLabelText('Whose usage')).toBeNull();
  });

  it('lets an admin read the whole workspace by member', async () => {
    const { calls } = serve(true);
    const user = userEvent.setup();
    renderWithProviders(<UsageChart />);
    await user.selectOptions(await screen.findByLabelText('Whose usage'), 'workspace');
    await user.selectOptions(screen.getByLabelText('Break down by'), 'user');
    await waitFor(() => expect(screen.getByRole('table', { name: 'Totals for the period' })).toHaveTextContent('Ada (ada@example.com)'));
    const last = calls.filter((c) => c.url.pathname === '/v1/usage/character-stats').at(-1)!.url.searchParams;
    expect(last.get('include_workspace_metrics')).toBe('true');
    expect(last.get('breakdown_type')).toBe('user');
  });

  it('opens on the workspace for admins at /app/usage/workspace, on their own usage for others', async () => {
    for (const isAdmin of [true, false]) {
      const { calls } = serve(isAdmin);
      const view = renderWithProviders(<UsageChart workspace />);
      await screen.findByRole('table', { name: 'Totals for the period' });
      const sent = calls.filter((c) => c.url.pathname === '/v1/usage/character-stats').map((c) => c.url.searchParams.get('include_workspace_metrics'));
      expect(sent).toEqual([String(isAdmin)]);
      view.unmount();
      vi.unstubAllGlobals();
    }
  });

  it('says so when nothing was used', async () => {
    mockFetch({
      'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: false }),
      'GET /v1/usage/character-stats': () => jsonResponse({ time: [0, DAY], usage: { tts: [0, 0] } }),
    });
    renderWithProviders(<UsageChart />);
    expect(await screen.findByText('No usage in this period.')).toBeInTheDocument();
    expect(screen.queryByRole('img')).toBeNull();
  });
});
