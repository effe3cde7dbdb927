import { client, unwrap, type Schemas } from '@/lib/api';
import type { FeatureId } from '@/lib/capabilities';

/** Onboarding checklist items (spec §4), in the server's order (internal/account.Items). */
export const CHECKLIST_ITEMS = [
  'generate_speech',
  'add_voice_from_library',
  'design_voice',
  'create_dub',
  'generate_affiliate_link',
  'api_key_unhidden',
] as const;
export type ChecklistItemId = (typeof CHECKLIST_ITEMS)[number];

export const CHECKLIST_LABELS: Record<string, string> = {
  generate_speech: 'Generate speech',
  add_voice_from_library: 'Add a voice from the library',
  design_voice: 'Design a voice',
  create_dub: 'Create a dub',
  generate_affiliate_link: 'Generate an affiliate link',
  api_key_unhidden: 'Reveal an API key',
};

export type ChecklistItem = Schemas['AccountChecklistItem'];
export type Checklist = Schemas['AccountChecklist'];

/**
 * Where each checklist step is done, and the server feature it needs. Steps without a page here
 * (the voice library, voice design, dubbing, affiliate links) are not built yet and not shown.
 */
export const CHECKLIST_LINKS: Record<string, { to: string; feature: FeatureId }> = {
  generate_speech: { to: '/app/speech-synthesis/text-to-speech', feature: 'text_to_speech' },
  api_key_unhidden: { to: '/app/developers/api-keys', feature: 'api_keys' },
};

export interface GeoLocation {
  region: string;
  country: string;
  city: string;
}

export type OnboardingSurvey = Schemas['AccountOnboardingSurvey'];

/** The account-extras fields of GET /v1/user (spec §3 User). */
export interface AccountUser {
  user_id: string;
  email?: string;
  first_name?: string | null;
  is_onboarding_completed?: boolean;
  onboarding_survey?: OnboardingSurvey | null;
  is_onboarding_checklist_completed?: boolean;
  onboarding_checklist?: Checklist | null;
  ccpa_opt_out?: boolean;
  accepted_bipa_terms?: boolean;
  geo_location?: GeoLocation | null;
  public_user_name?: string | null;
}

/** What the checklist routes answer; an update also names the item and whether it just completed. */
export type ChecklistState = Schemas['AccountChecklistState'] & Partial<Pick<Schemas['AccountChecklistUpdate'], 'item_id' | 'newly_completed'>>;

export type AlphaAccess = Schemas['AccountAlphaAccess'];

export const accountUserQueryKey = ['account', 'user'] as const;
export const alphaAccessQueryKey = ['account', 'alpha-access'] as const;

export const getAccountUser = () => unwrap(client.GET('/v1/user')) as Promise<AccountUser>;
export const completeSurvey = (survey: OnboardingSurvey) =>
  unwrap(client.POST('/v1/user/onboarding-survey-complete', { body: survey }));
export const initiateChecklist = (): Promise<ChecklistState> => unwrap(client.POST('/v1/user/onboarding-checklist/initiate'));
export const updateChecklistItem = (itemId: ChecklistItemId): Promise<ChecklistState> =>
  unwrap(client.POST('/v1/user/onboarding-checklist/update', { body: { item_id: itemId } }));
export const hideChecklist = (): Promise<ChecklistState> => unwrap(client.POST('/v1/user/onboarding-checklist/hide'));
export const markChecklistComplete = (): Promise<ChecklistState> => unwrap(client.POST('/v1/user/onboarding-checklist/mark-complete'));
export const acceptBipaTerms = () => unwrap(client.POST('/v1/user/accept-bipa-terms'));
export const getAlphaAccess = () => unwrap(client.GET('/v1/user/has-alpha-access'));
export const requestAlphaAccess = () => unwrap(client.POST('/v1/user/request-alpha-access'));
export const updatePublicUserName = (name: string) =>
  unwrap(client.POST('/v1/user/update-public-user-name', { body: { public_user_name: name } }));

/**
 * The "API key unhidden" checklist event (spec §4): call it when the web app reveals an API key.
 * Failures are ignored: the key is shown either way.
 */
export function reportApiKeyUnhidden(): void {
  updateChecklistItem('api_key_unhidden').catch(() => undefined);
}

/** Items that are completed in `next` but were not in `prev` (the steps to congratulate). */
export function newlyCompletedItems(prev: Checklist | null | undefined, next: Checklist | null | undefined): string[] {
  if (!prev || !next || prev.checklist_id !== next.checklist_id) return [];
  const before = new Set(prev.items.filter((i) => i.is_completed).map((i) => i.onboarding_checklist_item_id));
  return next.items
    .filter((i) => i.is_completed && !before.has(i.onboarding_checklist_item_id))
    .map((i) => i.onboarding_checklist_item_id);
}

/** Congratulation toasts to show for a change of the checklist (spec §4: none when hidden). */
export function congratulations(prev: Checklist | null | undefined, next: Checklist | null | undefined): string[] {
  if (!next || next.hidden) return [];
  return newlyCompletedItems(prev, next).map(
    (id) => `Congratulations! You completed “${CHECKLIST_LABELS[id] ?? id}”.`,
  );
}

/** Whether the checklist card shows: started, not hidden, not marked complete. */
export function showChecklist(user: AccountUser | undefined): boolean {
  const cl = user?.onboarding_checklist;
  return !!cl && !cl.hidden && user?.is_onboarding_checklist_completed === false;
}

/** Biometric terms are required for users in Illinois, US (spec §5), until accepted. */
export function bipaRequired(user: AccountUser | undefined): boolean {
  const geo = user?.geo_location;
  if (!user || !geo || user.accepted_bipa_terms) return false;
  return geo.country.toUpperCase() === 'US' && geo.region.toUpperCase() === 'IL';
}
