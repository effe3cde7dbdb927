import { getItem, setItem } from '@/lib/storage';

/**
 * Referral codes (spec §5, §9): a page opened with `?ref=` (or `?via=`) keeps
 * the code for 90 days as a {value, expiry} record under a xi_website_ key;
 * sign-up sends it as `referral_code` while unexpired, then forgets it. A
 * paid-ad click id or a partner key in the URL wins: the referral is not kept,
 * and one kept before is dropped.
 */
export const REFERRAL_KEY = 'xi_website_referral';
export const REFERRAL_TTL_MS = 90 * 24 * 60 * 60 * 1000;
export const REFERRAL_PARAMS = ['ref', 'via'] as const;
export const AD_CLICK_PARAMS = ['gclid', 'fbclid', 'msclkid', 'ttclid', 'li_fat_id'] as const;
export const PARTNER_KEY_PARAMS = ['pk', 'partner_key'] as const;

/** What the server accepts as a referral code. */
const CODE_RE = /^[A-Za-z0-9_-]{1,64}$/;

export type ReferralRecord = { value: string; expiry: number };

/** Reads a page's query: keeps its referral code, or drops the kept one for an ad click / partner key. */
export function captureReferral(search: string | URLSearchParams, now: number = Date.now()): void {
  const params = typeof search === 'string' ? new URLSearchParams(search) : search;
  if ([...AD_CLICK_PARAMS, ...PARTNER_KEY_PARAMS].some((p) => params.has(p))) {
    clearStoredReferral();
    return;
  }
  for (const p of REFERRAL_PARAMS) {
    const value = params.get(p)?.trim();
    if (value && CODE_RE.test(value)) {
      const record: ReferralRecord = { value, expiry: now + REFERRAL_TTL_MS };
      setItem(REFERRAL_KEY, JSON.stringify(record));
      return;
    }
  }
}

/** The kept referral code while unexpired; an expired or malformed record is removed. */
export function getStoredReferral(now: number = Date.now()): string | null {
  const raw = getItem(REFERRAL_KEY);
  if (!raw) return null;
  try {
    const r = JSON.parse(raw) as Partial<ReferralRecord>;
    if (typeof r.value === 'string' && CODE_RE.test(r.value) && typeof r.expiry === 'number' && r.expiry > now) return r.value;
  } catch {
    /* malformed: dropped below */
  }
  clearStoredReferral();
  return null;
}

export function clearStoredReferral(): void {
  setItem(REFERRAL_KEY, null);
}
