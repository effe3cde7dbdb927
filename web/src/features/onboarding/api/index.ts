import type { FeatureId } from '@/lib/capabilities';
import { request } from './request';

export { request } from './request';

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

/**
 * Where each checklist step is done, and the server feature it needs. Steps without a page here
 * (the voice library, voice design, dubbing, affiliate links) are not built yet and not shown.
 */
export const CHECKLIST_LINKS: Record<string, { to: string; feature: FeatureId }> = {
  generate_speech: { to: '/app/speech-synthesis/text-to-speech', feature: 'text_to_speech' },
  api_key_unhidden: { to: '/app/developers/api-keys', feature: 'api_keys' },
};

export interface ChecklistItem {
  onboarding_checklist_item_id: string;
  is_completed: boolean;
}

export interface Checklist {
  checklist_id: string;
  items: ChecklistItem[];
  hidden: boolean;
}

export interface GeoLocation {
  region: string;
  country: string;
  city: string;
}

export interface OnboardingSurvey {
  first_name: string;
  role: string;
  subrole?: string;
  timezone?: string;
  source?: string;
}

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

export interface ChecklistState {
  onboarding_checklist: Checklist | null;
  is_onboarding_checklist_completed: boolean;
  item_id?: string;
  newly_completed?: boolean;
}

export interface AlphaAccess {
  has_alpha_access: boolean;
  alpha_access_requested: boolean;
}

export const accountUserQueryKey = ['account', 'user'] as const;
export const alphaAccessQueryKey = ['account', 'alpha-access'] as const;

export const getAccountUser = () => request<AccountUser>('GET', '/v1/user');
export const completeSurvey = (survey: OnboardingSurvey) =>
  request<{ is_onboarding_completed: boolean }>('POST', '/v1/user/onboarding-survey-complete', survey);
export const initiateChecklist = () => request<ChecklistState>('POST', '/v1/user/onboarding-checklist/initiate');
export const updateChecklistItem = (itemId: ChecklistItemId) =>
  request<ChecklistState>('POST', '/v1/user/onboarding-checklist/update', { item_id: itemId });
export const hideChecklist = () => request<ChecklistState>('POST', '/v1/user/onboarding-checklist/hide');
export const markChecklistComplete = () => request<ChecklistState>('POST', '/v1/user/onboarding-checklist/mark-complete');
export const acceptBipaTerms = () => request<{ accepted_bipa_terms: boolean }>('POST', '/v1/user/accept-bipa-terms');
export const getAlphaAccess = () => request<AlphaAccess>('GET', '/v1/user/has-alpha-access');
export const requestAlphaAccess = () => request<AlphaAccess>('POST', '/v1/user/request-alpha-access');
export const updatePublicUserName = (name: string) =>
  request<{ public_user_name: string }>('POST', '/v1/user/update-public-user-name', { public_user_name: name });

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
