import { readCookie } from '@/lib/cookies';
import { client, unwrap } from '@/lib/api';

/**
 * Analytics consent and the CCPA opt-out (spec §4, §6). Both are device choices, so they live
 * outside the `timbre.` storage prefix that sign-out clears.
 */

/** Analytics consent (spec §4). `undecided` is kept in memory only. */
export type AnalyticsConsent = 'undecided' | 'granted' | 'denied' | 'not_applicable';

export const CONSENT_STORAGE_KEY = 'timbre_consent.analytics';
export const CCPA_STORAGE_KEY = 'timbre_consent.ccpa_opt_out';
export const CCPA_PROMPT_DISMISSED_KEY = 'timbre_consent.ccpa_prompt_dismissed';
export const CCPA_COOKIE = 'timbre_ccpa_opt_out';
const CCPA_COOKIE_MAX_AGE = 360 * 24 * 3600;

/** US states whose users see the opt-out prompt (spec §6). */
export const CCPA_STATES = ['ca', 'ct', 'co', 'ut', 'va', 'or', 'mt', 'tx'] as const;

/** Time zones outside Europe/… that are in the European Economic Area, the UK or Switzerland. */
const EUROPEAN_EXTRA_ZONES = new Set([
  'Atlantic/Azores',
  'Atlantic/Canary',
  'Atlantic/Madeira',
  'Atlantic/Faroe',
  'Atlantic/Reykjavik',
  'Arctic/Longyearbyen',
  'Asia/Nicosia',
  'Asia/Famagusta',
  'WET',
  'CET',
  'MET',
  'EET',
  'GB',
  'Eire',
  'Iceland',
  'Poland',
  'Portugal',
]);

export function isEuropeanTimeZone(tz: string | undefined): boolean {
  if (!tz) return false;
  return tz.startsWith('Europe/') || EUROPEAN_EXTRA_ZONES.has(tz);
}

export { browserTimeZone } from '@/lib/timezone';

function safeGet(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function safeSet(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* storage unavailable */
  }
}

/** The consent state on load: not_applicable outside European time zones, else the stored choice, else undecided. */
export function initialConsent(tz: string | undefined, stored: string | null = safeGet(CONSENT_STORAGE_KEY)): AnalyticsConsent {
  if (!isEuropeanTimeZone(tz)) return 'not_applicable';
  return stored === 'granted' || stored === 'denied' ? stored : 'undecided';
}

/** Stores a decision (granted or denied; the other states are never stored). */
export function storeConsent(value: AnalyticsConsent): void {
  if (value === 'granted' || value === 'denied') safeSet(CONSENT_STORAGE_KEY, value);
}

/** Analytics may run only when consent is granted or does not apply, and the user has not opted out under CCPA. */
export function analyticsAllowed(consent: AnalyticsConsent, ccpaOptOut: boolean): boolean {
  return !ccpaOptOut && (consent === 'granted' || consent === 'not_applicable');
}

export interface GeoLike {
  country?: string;
  region?: string;
}

export function isCcpaRegion(geo: GeoLike | null | undefined): boolean {
  if (!geo?.country || !geo.region) return false;
  return geo.country.toUpperCase() === 'US' && (CCPA_STATES as readonly string[]).includes(geo.region.toLowerCase());
}

/** Whether the browser sends the Global Privacy Control signal. */
export function globalPrivacySignal(nav: unknown = typeof navigator === 'undefined' ? undefined : navigator): boolean {
  return (nav as { globalPrivacyControl?: boolean } | undefined)?.globalPrivacyControl === true;
}

/** The opt-out stored on this device: localStorage or the cookie. */
export function storedCcpaOptOut(): boolean {
  return safeGet(CCPA_STORAGE_KEY) === 'true' || readCookie(CCPA_COOKIE) === 'true';
}

export type CcpaAction = 'none' | 'prompt' | 'auto_opt_out';

/**
 * What to do about CCPA (spec §6): nothing outside the listed states or once opted out; in those
 * states opt out automatically when the browser sends the global privacy signal, else prompt
 * (unless the prompt was dismissed).
 */
export function ccpaAction(opts: { geo: GeoLike | null | undefined; gpc: boolean; optedOut: boolean; dismissed: boolean }): CcpaAction {
  if (opts.optedOut || !isCcpaRegion(opts.geo)) return 'none';
  if (opts.gpc) return 'auto_opt_out';
  return opts.dismissed ? 'none' : 'prompt';
}

export function ccpaPromptDismissed(): boolean {
  return safeGet(CCPA_PROMPT_DISMISSED_KEY) === 'true';
}

export function dismissCcpaPrompt(): void {
  safeSet(CCPA_PROMPT_DISMISSED_KEY, 'true');
}

/**
 * Opts out (spec §4): stored locally, in a cookie, and on the account when signed in; then
 * analytics stops (consent denied) and the page reloads. Failure to store on the account is
 * logged only: the device's opt-out stands.
 */
export async function optOutOfCcpa(opts: { signedIn: boolean; reload?: () => void }): Promise<void> {
  safeSet(CCPA_STORAGE_KEY, 'true');
  document.cookie = `${CCPA_COOKIE}=true; Max-Age=${CCPA_COOKIE_MAX_AGE}; Path=/; SameSite=Strict`;
  if (opts.signedIn) {
    try {
      await unwrap(client.POST('/api/account/ccpa-opt-out', { body: { ccpa_opt_out: true } }));
    } catch (err) {
      console.warn('CCPA opt-out not stored on the account', err);
    }
  }
  storeConsent('denied');
  (opts.reload ?? (() => window.location.reload()))();
}
