import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearToasts, useToasts } from '@/lib/toast';
import { jsonResponse, mockFetch, renderWithProviders, testQueryClient } from '@/test/utils';
import {
  accountUserQueryKey,
  bipaRequired,
  congratulations,
  newlyCompletedItems,
  reportApiKeyUnhidden,
  showChecklist,
  type AccountUser,
  type Checklist,
  type ChecklistItemId,
} from './api';
import { BIPA_TITLE, BipaDialog } from './components/BipaDialog';
import { ChecklistCard } from './components/ChecklistCard';
import { PublicNameForm, PUBLIC_NAME_UPDATED } from './components/PublicNameForm';
import { AlphaAccessCard } from './components/AlphaAccessCard';

afterEach(() => clearToasts());

function checklist(done: string[], hidden = false): Checklist {
  const ids: ChecklistItemId[] = ['generate_speech', 'api_key_unhidden', 'create_dub'];
  return {
    checklist_id: 'cl1',
    hidden,
    items: ids.map((id) => ({
      onboarding_checklist_item_id: id,
      is_completed: done.includes(id),
    })),
  };
}

function user(over: Partial<AccountUser> = {}): AccountUser {
  return {
    user_id: 'u1',
    is_onboarding_completed: true,
    is_onboarding_checklist_completed: false,
    onboarding_checklist: checklist([]),
    accepted_bipa_terms: false,
    geo_location: null,
    ccpa_opt_out: false,
    ...over,
  };
}

function Toasts() {
  const toasts = useToasts();
  return (
    <ul aria-label="toasts">
      {toasts.map((t) => (
        <li key={t.id}>{t.message}</li>
      ))}
    </ul>
  );
}

describe('onboarding checklist rules (spec §4)', () => {
  it('congratulates each newly completed step, only against a previous snapshot, never when hidden', () => {
    expect(newlyCompletedItems(checklist([]), checklist(['generate_speech']))).toEqual(['generate_speech']);
    expect(newlyCompletedItems(undefined, checklist(['generate_speech']))).toEqual([]);
    expect(newlyCompletedItems(checklist(['generate_speech']), checklist(['generate_speech']))).toEqual([]);
    expect(congratulations(checklist([]), checklist(['generate_speech', 'api_key_unhidden']))).toEqual([
      'Congratulations! You completed “Generate speech”.',
      'Congratulations! You completed “Reveal an API key”.',
    ]);
    expect(congratulations(checklist([], true), checklist(['generate_speech'], true))).toEqual([]);
    expect(newlyCompletedItems(checklist([]), { ...checklist(['create_dub']), checklist_id: 'other' })).toEqual([]);
  });
  it('shows the card only for a started, shown, unfinished checklist', () => {
    expect(showChecklist(user())).toBe(true);
    expect(showChecklist(user({ onboarding_checklist: null }))).toBe(false);
    expect(showChecklist(user({ onboarding_checklist: checklist([], true) }))).toBe(false);
    expect(showChecklist(user({ is_onboarding_checklist_completed: true }))).toBe(false);
  });
  it('reports the API key being unhidden', async () => {
    const { calls } = mockFetch({ 'POST /v1/user/onboarding-checklist/update': () => jsonResponse({}) });
    reportApiKeyUnhidden();
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]!.body).toEqual({ item_id: 'api_key_unhidden' });
  });
  it('toasts when a poll shows a step done, then hides and marks complete', async () => {
    let current = user();
    const { calls } = mockFetch({
      'GET /v1/user': () => jsonResponse(current),
      'POST /v1/user/onboarding-checklist/hide': () =>
        jsonResponse({ onboarding_checklist: checklist(['generate_speech'], true), is_onboarding_checklist_completed: false }),
    });
    const queryClient = testQueryClient();
    renderWithProviders(
      <>
        <ChecklistCard />
        <Toasts />
      </>,
      { queryClient },
    );
    expect(await screen.findByRole('heading', { name: 'Get started' })).toBeInTheDocument();
    // Create a dub is not built: the card leaves it out; the others link to their pages.
    expect(screen.getByText('0 of 2 done')).toBeInTheDocument();
    expect(screen.queryByText('Create a dub')).toBeNull();
    expect(screen.getByRole('link', { name: /Generate speech/ })).toHaveAttribute('href', '/app/speech-synthesis/text-to-speech');
    expect(screen.getByRole('link', { name: /Reveal an API key/ })).toHaveAttribute('href', '/app/developers/api-keys');
    expect(screen.queryByText(/Congratulations/)).toBeNull();

    current = user({ onboarding_checklist: checklist(['generate_speech']) });
    await act(() => queryClient.invalidateQueries({ queryKey: accountUserQueryKey }));
    expect(await screen.findByText('Congratulations! You completed “Generate speech”.')).toBeInTheDocument();
    expect(screen.getByText('1 of 2 done')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Hide' }));
    await waitFor(() => expect(screen.queryByRole('heading', { name: 'Get started' })).toBeNull());
    expect(calls.some((c) => c.method === 'POST' && c.url.pathname === '/v1/user/onboarding-checklist/hide')).toBe(true);

    // Hidden: a further completed step gives no toast.
    clearToasts();
    current = user({ onboarding_checklist: checklist(['generate_speech', 'create_dub'], true) });
    await act(() => queryClient.invalidateQueries({ queryKey: accountUserQueryKey }));
    await new Promise((r) => setTimeout(r, 20));
    expect(screen.queryByText(/Congratulations/)).toBeNull();
  });
  it('mark complete removes the card', async () => {
    mockFetch({
      'GET /v1/user': () => jsonResponse(user()),
      'POST /v1/user/onboarding-checklist/mark-complete': () =>
        jsonResponse({ onboarding_checklist: checklist([]), is_onboarding_checklist_completed: true }),
    });
    renderWithProviders(<ChecklistCard />);
    await userEvent.click(await screen.findByRole('button', { name: 'Mark complete' }));
    await waitFor(() => expect(screen.queryByRole('heading', { name: 'Get started' })).toBeNull());
  });
});

describe('BIPA terms (spec §5)', () => {
  it('are required in Illinois, US only, until accepted', () => {
    expect(bipaRequired(user({ geo_location: { country: 'US', region: 'IL', city: 'Chicago' } }))).toBe(true);
    expect(bipaRequired(user({ geo_location: { country: 'us', region: 'il', city: '' } }))).toBe(true);
    expect(bipaRequired(user({ geo_location: { country: 'US', region: 'IL', city: '' }, accepted_bipa_terms: true }))).toBe(false);
    expect(bipaRequired(user({ geo_location: { country: 'US', region: 'CA', city: '' } }))).toBe(false);
    expect(bipaRequired(user({ geo_location: { country: 'FR', region: 'IL', city: '' } }))).toBe(false);
    expect(bipaRequired(user({ geo_location: null }))).toBe(false);
  });
  it('cannot be closed until accepted', async () => {
    const { calls } = mockFetch({
      'GET /v1/user': () => jsonResponse(user({ geo_location: { country: 'US', region: 'IL', city: 'Chicago' } })),
      'POST /v1/user/accept-bipa-terms': () => jsonResponse({ accepted_bipa_terms: true }),
    });
    renderWithProviders(<BipaDialog />);
    const dialog = await screen.findByRole('dialog', { name: BIPA_TITLE });
    expect(screen.queryByRole('button', { name: 'Close' })).toBeNull();
    await userEvent.keyboard('{Escape}');
    expect(screen.getByRole('dialog', { name: BIPA_TITLE })).toBe(dialog);
    await userEvent.click(screen.getByRole('button', { name: 'I accept' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: BIPA_TITLE })).toBeNull());
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.url.pathname)).toEqual(['/v1/user/accept-bipa-terms']);
  });
  it('stays open when accepting fails', async () => {
    mockFetch({
      'GET /v1/user': () => jsonResponse(user({ geo_location: { country: 'US', region: 'IL', city: '' } })),
      'POST /v1/user/accept-bipa-terms': () => jsonResponse({ detail: { status: 'x', message: 'Nope' } }, 400),
    });
    renderWithProviders(
      <>
        <BipaDialog />
        <Toasts />
      </>,
    );
    await userEvent.click(await screen.findByRole('button', { name: 'I accept' }));
    expect(await screen.findByText('Nope')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: BIPA_TITLE })).toBeInTheDocument();
  });
  it('is not shown elsewhere', async () => {
    mockFetch({ 'GET /v1/user': () => jsonResponse(user({ geo_location: { country: 'US', region: 'NY', city: '' } })) });
    renderWithProviders(<BipaDialog />);
    await new Promise((r) => setTimeout(r, 20));
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('public name and alpha access', () => {
  it('shows "Public name updated" even when the update fails (spec §8), and logs it', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    mockFetch({ 'POST /v1/user/update-public-user-name': () => jsonResponse({ detail: { status: 'x', message: 'bad' } }, 500) });
    renderWithProviders(
      <>
        <PublicNameForm />
        <Toasts />
      </>,
    );
    await userEvent.type(screen.getByLabelText('Public name'), 'Ada');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(PUBLIC_NAME_UPDATED)).toBeInTheDocument();
    expect(log).toHaveBeenCalled();
  });
  it('requests alpha access once', async () => {
    let requested = false;
    const { calls } = mockFetch({
      'GET /v1/user/has-alpha-access': () => jsonResponse({ has_alpha_access: false, alpha_access_requested: requested }),
      'POST /v1/user/request-alpha-access': () => {
        requested = true;
        return jsonResponse({ has_alpha_access: false, alpha_access_requested: true });
      },
    });
    renderWithProviders(<AlphaAccessCard />);
    await userEvent.click(await screen.findByRole('button', { name: 'Request alpha access' }));
    expect(await screen.findByRole('button', { name: 'Alpha access requested' })).toBeDisabled();
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
  });
});
