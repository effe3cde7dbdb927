import { useQuery } from '@tanstack/react-query';
import { client, unwrap, type Schemas } from '@/lib/api';

export type Capabilities = Schemas['Capabilities'];
export type FeatureId =
  | 'text_to_speech'
  | 'speech_history'
  | 'premade_voices'
  | 'api_keys'
  | 'workspaces'
  | 'service_accounts'
  | 'webhooks'
  | 'sso'
  | 'two_factor'
  | 'audit_log'
  | 'referrals'
  | 'ai_speech_classifier';

/**
 * The answer differs signed in (plan limits) and out, so pages before and after sign-in keep
 * separate cache entries.
 */
export const capabilitiesQueryKey = (scope: 'public' | 'session') => ['capabilities', scope] as const;

export const getCapabilities = () => unwrap(client.GET('/api/capabilities'));

/** What the server really offers (GET /api/capabilities), plus the caller's plan limits when signed in. */
export function useCapabilities(scope: 'public' | 'session' = 'session') {
  return useQuery({ queryKey: capabilitiesQueryKey(scope), queryFn: getCapabilities, staleTime: 60_000 });
}

/** Whether the server offers a feature; undefined while unknown. */
export function offers(caps: Capabilities | undefined, id: FeatureId): boolean | undefined {
  return caps ? caps.features.some((f) => f.id === id) : undefined;
}

/** The web app's own terms and privacy pages: linked until the server answers, and when its operator names none. */
export const BUILT_IN_LEGAL = { terms_url: '/terms', privacy_url: '/privacy' } as const;

/** Where "Terms of Service" and "Privacy Policy" lead: the operator's pages, else the built-in ones. */
export function legalLinks(caps: Capabilities | undefined): Capabilities['legal'] {
  return caps?.legal ?? BUILT_IN_LEGAL;
}

/** The per-request character limit and cost multiplier of a model on the caller's plan. */
export function modelLimit(caps: Capabilities | undefined, modelId: string | null | undefined) {
  return caps?.text_to_speech?.models.find((m) => m.model_id === modelId);
}

/**
 * Characters a text counts for: none when it is only whitespace (the server refuses such text),
 * else every character (code point), as the server counts them.
 */
export function countCharacters(text: string): number {
  return text.trim() === '' ? 0 : Array.from(text).length;
}

/** Credits a request costs: characters × the model's multiplier, rounded up (as the server charges). */
export function creditCost(characters: number, multiplier = 1): number {
  return Math.ceil(characters * multiplier);
}
