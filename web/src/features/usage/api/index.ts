import { useQuery } from '@tanstack/react-query';
import { client, unwrap, type Schemas } from '@/lib/api';

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
