import { useQuery } from '@tanstack/react-query';
import { client, unwrap, type Schemas } from '@/lib/api';
import { listMembers, membersQueryKey } from '@/lib/members';

export type Subscription = Schemas['SubscriptionResponseModel'];

export const subscriptionQueryKey = ['usage', 'subscription'] as const;

export const getSubscription = () => unwrap(client.GET('/v1/user/subscription'));

export function useSubscription() {
  return useQuery({ queryKey: subscriptionQueryKey, queryFn: getSubscription, staleTime: 60_000 });
}

const TIER_NAMES: Record<string, string> = {
  free: 'Free',
  starter: 'Starter',
  creator: 'Creator',
  pro: 'Pro',
  growing_business: 'Scale',
  scale_2024_08_10: 'Business',
  enterprise: 'Enterprise',
  trial: 'Trial',
};

export function tierName(tier: string | undefined): string {
  if (!tier) return '';
  return TIER_NAMES[tier] ?? tier.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
}

/** Credits left, or undefined for unlimited limits (-1). */
export function creditsRemaining(sub: Subscription | undefined): number | undefined {
  if (!sub || sub.character_limit < 0) return undefined;
  return Math.max(0, sub.character_limit - sub.character_count);
}

export type UsageStats = Schemas['UsageCharactersResponseModel'];
export type UsageBreakdown = 'none' | 'product_type' | 'voice' | 'model' | 'api_keys' | 'user';
export type UsageMetric = 'credits' | 'tts_characters' | 'request_count';
export type UsageRange = '7d' | '30d' | '90d' | '12m';

export interface UsageQuery {
  range: UsageRange;
  breakdown: UsageBreakdown;
  metric: UsageMetric;
  workspace: boolean; // the whole workspace's usage (admins) rather than the caller's own
}

const DAY_MS = 86_400_000;

/**
 * The window and bucket size a range asks the server for: whole UTC days (the server buckets by
 * UTC day), ending with today; twelve months go by month.
 */
export function usageWindow(range: UsageRange, now = Date.now()) {
  const endOfToday = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
  if (range === '12m') {
    const d = new Date(now);
    const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 11, 1);
    return { start, end: endOfToday, interval: 'month' as const };
  }
  const days = range === '7d' ? 7 : range === '30d' ? 30 : 90;
  return { start: endOfToday - days * DAY_MS, end: endOfToday, interval: 'day' as const };
}

export const usageStatsQueryKey = (q: UsageQuery) => ['usage', 'stats', q] as const;

export function getUsageStats(q: UsageQuery, now = Date.now()) {
  const w = usageWindow(q.range, now);
  return unwrap(
    client.GET('/v1/usage/character-stats', {
      params: {
        query: {
          start_unix: w.start,
          end_unix: w.end,
          aggregation_interval: w.interval,
          breakdown_type: q.breakdown,
          metric: q.metric,
          include_workspace_metrics: q.workspace,
        },
      },
    }),
  );
}

export function useUsageStats(q: UsageQuery, enabled = true) {
  return useQuery({ queryKey: usageStatsQueryKey(q), queryFn: () => getUsageStats(q), staleTime: 30_000, enabled });
}

/**
 * Names for the ids a breakdown's series carry (voices, models, API keys, members); a series
 * whose id is not found keeps its id. Each list is only fetched for its own breakdown.
 */
export function useSeriesNames(breakdown: UsageBreakdown): Map<string, string> {
  const voices = useQuery({
    queryKey: ['usage', 'voice-names'],
    queryFn: () => unwrap(client.GET('/v1/voices', {})),
    enabled: breakdown === 'voice',
    staleTime: 60_000,
  });
  const models = useQuery({
    queryKey: ['usage', 'model-names'],
    queryFn: () => unwrap(client.GET('/v1/models')),
    enabled: breakdown === 'model',
    staleTime: 60_000,
  });
  const keys = useQuery({
    queryKey: ['usage', 'key-names'],
    queryFn: () => unwrap(client.GET('/v1/user/api-keys')),
    enabled: breakdown === 'api_keys',
    staleTime: 60_000,
    retry: false,
  });
  const members = useQuery({
    queryKey: membersQueryKey,
    queryFn: listMembers,
    enabled: breakdown === 'user',
    retry: false,
  });
  // Usage that has no voice, model, key or member: sound effects and music have no voice, and
  // the web app's requests no API key.
  const names = new Map<string, string>([['', NO_SERIES_NAMES[breakdown] ?? 'Unknown']]);
  if (breakdown === 'product_type') for (const [id, name] of Object.entries(PRODUCT_NAMES)) names.set(id, name);
  for (const v of voices.data?.voices ?? []) names.set(v.voice_id, v.name ?? v.voice_id);
  for (const m of models.data ?? []) names.set(m.model_id, m.name ?? m.model_id);
  for (const k of (keys.data as { api_keys?: Array<{ key_id: string; name: string }> } | undefined)?.api_keys ?? [])
    names.set(k.key_id, k.name);
  for (const m of members.data ?? []) names.set(m.user_id, m.first_name ? `${m.first_name} (${m.email})` : m.email);
  return names;
}

const NO_SERIES_NAMES: Partial<Record<UsageBreakdown, string>> = {
  voice: 'No voice',
  model: 'No model',
  api_keys: 'Web app (no API key)',
};

/** The metering ledger's products, as people call them. */
export const PRODUCT_NAMES: Record<string, string> = {
  tts: 'Text to speech',
  stt: 'Speech to text',
  sfx: 'Sound effects',
  music: 'Music',
  agents: 'Agents',
  dubbing: 'Dubbing',
  voice_design: 'Voice design',
  isolation: 'Voice isolator',
  sts: 'Speech to speech',
  grant: 'Credits granted',
};
