import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import {
  analyticsAllowed,
  ccpaAction,
  CCPA_COOKIE,
  CCPA_STATES,
  CONSENT_STORAGE_KEY,
  CCPA_STORAGE_KEY,
  globalPrivacySignal,
  initialConsent,
  isEuropeanTimeZone,
  optOutOfCcpa,
  storedCcpaOptOut,
} from './api';
import { CcpaPrompt } from './components/CcpaPrompt';
import { ConsentBanner } from './components/ConsentBanner';

describe('analytics consent (spec §4)', () => {
  it('is not_applicable outside European time zones, whatever is stored', () => {
    expect(initialConsent('America/New_York', null)).toBe('not_applicable');
    expect(initialConsent('Asia/Tokyo', 'granted')).toBe('not_applicable');
    expect(initialConsent(undefined, null)).toBe('not_applicable');
  });
  it('is undecided in Europe until a choice is stored', () => {
    expect(isEuropeanTimeZone('Europe/Berlin')).toBe(true);
    expect(isEuropeanTimeZone('Atlantic/Canary')).toBe(true);
    expect(isEuropeanTimeZone('Asia/Nicosia')).toBe(true);
    expect(isEuropeanTimeZone('Africa/Cairo')).toBe(false);
    expect(initialConsent('Europe/Paris', null)).toBe('undecided');
    expect(initialConsent('Europe/Paris', 'denied')).toBe('denied');
    expect(initialConsent('Europe/Paris', 'granted')).toBe('granted');
    expect(initialConsent('Europe/Paris', 'undecided')).toBe('undecided');
  });
  it('allows analytics only when granted or not applicable, and never after a CCPA opt-out', () => {
    expect(analyticsAllowed('granted', false)).toBe(true);
    expect(analyticsAllowed('not_applicable', false)).toBe(true);
    expect(analyticsAllowed('undecided', false)).toBe(false);
    expect(analyticsAllowed('denied', false)).toBe(false);
    expect(analyticsAllowed('granted', true)).toBe(false);
  });
  it('shows the banner only while undecided; a choice is stored and hides it', async () => {
    const { unmount } = renderWithProviders(<ConsentBanner timeZone="America/Chicago" />);
    expect(screen.queryByRole('region', { name: 'Analytics consent' })).toBeNull();
    unmount();
    const onChange = vi.fn();
    renderWithProviders(<ConsentBanner timeZone="Europe/Berlin" onChange={onChange} />);
    await userEvent.click(screen.getByRole('button', { name: 'Accept' }));
    expect(onChange).toHaveBeenCalledWith('granted');
    expect(localStorage.getItem(CONSENT_STORAGE_KEY)).toBe('granted');
    expect(screen.queryByRole('region', { name: 'Analytics consent' })).toBeNull();
  });
  it('keeps undecided in memory only', () => {
    renderWithProviders(<ConsentBanner timeZone="Europe/Madrid" />);
    expect(screen.getByRole('region', { name: 'Analytics consent' })).toBeInTheDocument();
    expect(localStorage.getItem(CONSENT_STORAGE_KEY)).toBeNull();
  });
});

describe('CCPA opt-out (spec §6)', () => {
  it('prompts in each listed state and nowhere else', () => {
    expect([...CCPA_STATES].sort()).toEqual(['ca', 'co', 'ct', 'mt', 'or', 'tx', 'ut', 'va']);
    for (const s of CCPA_STATES) {
      expect(ccpaAction({ geo: { country: 'US', region: s.toUpperCase() }, gpc: false, optedOut: false, dismissed: false })).toBe('prompt');
    }
    for (const geo of [{ country: 'US', region: 'NY' }, { country: 'US', region: 'IL' }, { country: 'CA', region: 'CA' }, null]) {
      expect(ccpaAction({ geo, gpc: true, optedOut: false, dismissed: false })).toBe('none');
    }
  });
  it('opts out automatically with the global privacy signal, and not again once opted out', () => {
    const ca = { country: 'US', region: 'CA' };
    expect(ccpaAction({ geo: ca, gpc: true, optedOut: false, dismissed: true })).toBe('auto_opt_out');
    expect(ccpaAction({ geo: ca, gpc: true, optedOut: true, dismissed: false })).toBe('none');
    expect(ccpaAction({ geo: ca, gpc: false, optedOut: false, dismissed: true })).toBe('none');
    expect(globalPrivacySignal({ globalPrivacyControl: true })).toBe(true);
    expect(globalPrivacySignal({})).toBe(false);
  });
  it('stores the opt-out locally, in a cookie and on the account, stops analytics, then reloads', async () => {
    const { calls } = mockFetch({ 'POST /api/account/ccpa-opt-out': () => jsonResponse({ ccpa_opt_out: true }) });
    const reload = vi.fn();
    await optOutOfCcpa({ signedIn: true, reload });
    expect(localStorage.getItem(CCPA_STORAGE_KEY)).toBe('true');
    expect(document.cookie).toContain(`${CCPA_COOKIE}=true`);
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(['POST /api/account/ccpa-opt-out']);
    expect(calls[0]!.body).toEqual({ ccpa_opt_out: true });
    expect(localStorage.getItem(CONSENT_STORAGE_KEY)).toBe('denied');
    expect(reload).toHaveBeenCalledOnce();
    expect(storedCcpaOptOut()).toBe(true);
  });
  it('does not call the server when signed out', async () => {
    const { calls } = mockFetch({});
    const reload = vi.fn();
    await optOutOfCcpa({ signedIn: false, reload });
    expect(calls).toHaveLength(0);
    expect(storedCcpaOptOut()).toBe(true);
    expect(reload).toHaveBeenCalledOnce();
  });
  it('auto opts out on the privacy signal without showing the prompt', async () => {
    const { calls } = mockFetch({ 'POST /api/account/ccpa-opt-out': () => jsonResponse({ ccpa_opt_out: true }) });
    const reload = vi.fn();
    renderWithProviders(<CcpaPrompt geo={{ country: 'US', region: 'TX' }} signedIn gpc reload={reload} />);
    expect(screen.queryByRole('region', { name: 'Your privacy choices' })).toBeNull();
    await waitFor(() => expect(reload).toHaveBeenCalledOnce());
    expect(calls).toHaveLength(1);
  });
  it('prompts without the signal; "Not now" hides it for good; the account opt-out hides it', async () => {
    const reload = vi.fn();
    const { unmount } = renderWithProviders(<CcpaPrompt geo={{ country: 'US', region: 'VA' }} signedIn accountOptOut gpc={false} reload={reload} />);
    expect(screen.queryByRole('region', { name: 'Your privacy choices' })).toBeNull();
    unmount();
    const r2 = renderWithProviders(<CcpaPrompt geo={{ country: 'US', region: 'VA' }} signedIn gpc={false} reload={reload} />);
    await userEvent.click(screen.getByRole('button', { name: 'Not now' }));
    expect(screen.queryByRole('region', { name: 'Your privacy choices' })).toBeNull();
    r2.unmount();
    renderWithProviders(<CcpaPrompt geo={{ country: 'US', region: 'VA' }} signedIn gpc={false} reload={reload} />);
    expect(screen.queryByRole('region', { name: 'Your privacy choices' })).toBeNull();
    expect(reload).not.toHaveBeenCalled();
  });
  it('opts out from the prompt', async () => {
    const { calls } = mockFetch({ 'POST /api/account/ccpa-opt-out': () => jsonResponse({ ccpa_opt_out: true }) });
    const reload = vi.fn();
    renderWithProviders(<CcpaPrompt geo={{ country: 'US', region: 'OR' }} signedIn gpc={false} reload={reload} />);
    await userEvent.click(screen.getByRole('button', { name: 'Do not sell or share my personal information' }));
    await waitFor(() => expect(reload).toHaveBeenCalledOnce());
    expect(calls[0]!.url.pathname).toBe('/api/account/ccpa-opt-out');
  });
});
