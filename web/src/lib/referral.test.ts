import { afterEach, describe, expect, it } from 'vitest';
import { captureReferral, clearStoredReferral, getStoredReferral, REFERRAL_KEY, REFERRAL_TTL_MS } from './referral';

const DAY = 24 * 60 * 60 * 1000;

afterEach(() => localStorage.clear());

describe('referral code capture', () => {
  it('keeps ?ref= as {value, expiry} for 90 days, then drops it', () => {
    const t0 = Date.UTC(2026, 0, 1);
    captureReferral('?ref=Friend_1', t0);
    expect(REFERRAL_TTL_MS).toBe(90 * DAY);
    expect(JSON.parse(localStorage.getItem(REFERRAL_KEY)!)).toEqual({ value: 'Friend_1', expiry: t0 + 90 * DAY });
    expect(REFERRAL_KEY.startsWith('xi_website_')).toBe(true);
    expect(getStoredReferral(t0 + 89 * DAY)).toBe('Friend_1');
    expect(getStoredReferral(t0 + 90 * DAY)).toBeNull();
    expect(localStorage.getItem(REFERRAL_KEY)).toBeNull(); // the expired record is removed
  });

  it('also reads ?via=, and a newer link replaces the kept code', () => {
    captureReferral('?via=first-code', 1000);
    expect(getStoredReferral(2000)).toBe('first-code');
    captureReferral(new URLSearchParams('ref=second'), 3000);
    expect(getStoredReferral(4000)).toBe('second');
  });

  it.each(['gclid', 'fbclid', 'msclkid', 'ttclid', 'li_fat_id', 'pk', 'partner_key'])(
    'does not keep a referral arriving with %s, and drops a kept one',
    (param) => {
      captureReferral(`?ref=abc&${param}=x1`, 1000);
      expect(getStoredReferral(2000)).toBeNull();
      captureReferral('?ref=kept', 1000);
      expect(getStoredReferral(2000)).toBe('kept');
      captureReferral(`?${param}=x2`, 3000);
      expect(getStoredReferral(4000)).toBeNull();
    },
  );

  it('ignores malformed codes and records, and pages without a code', () => {
    captureReferral('?ref=' + encodeURIComponent('bad code;'), 1000);
    captureReferral('?ref=' + 'a'.repeat(65), 1000);
    expect(getStoredReferral(2000)).toBeNull();
    captureReferral('?ref=good', 1000);
    captureReferral('?utm_source=news', 1500);
    expect(getStoredReferral(2000)).toBe('good');
    localStorage.setItem(REFERRAL_KEY, '{not json');
    expect(getStoredReferral(2000)).toBeNull();
    expect(localStorage.getItem(REFERRAL_KEY)).toBeNull();
    captureReferral('?ref=again', 1000);
    clearStoredReferral();
    expect(getStoredReferral(2000)).toBeNull();
  });
});
