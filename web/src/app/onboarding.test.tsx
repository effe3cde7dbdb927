import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  afterOnboarding,
  onboardingRedirect,
  openDuringOnboarding,
  safeOnboardingRedirect,
} from '@/features/onboarding';
import { landingsFor } from '@/features/onboarding/components/OnboardingPages';
import { PlayerProvider, PlayerStore } from '@/lib/player';
import { jsonResponse, mockFetch, testQueryClient } from '@/test/utils';
import { routes } from './router';

afterEach(() => vi.unstubAllGlobals());

function renderApp(path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  render(
    <QueryClientProvider client={testQueryClient()}>
      <PlayerProvider store={new PlayerStore()}>
        <RouterProvider router={router} />
      </PlayerProvider>
    </QueryClientProvider>,
  );
  return router;
}

const session = { user_id: 'u1', email: 'ada@example.com', email_verified: true, workspace_id: 'w1' };

/** A signed-in account whose survey is pending (done=false) or answered; the server's state. */
function account(done: boolean) {
  const state = { done, survey: null as unknown };
  const handlers = {
    'GET /api/auth/session': () => jsonResponse(session),
    'GET /v1/user': () =>
      jsonResponse({
        user_id: 'u1',
        email: session.email,
        first_name: state.done ? 'Ada' : '',
        is_onboarding_completed: state.done,
        onboarding_survey: state.survey,
        is_onboarding_checklist_completed: !state.done,
        onboarding_checklist: null,
      }),
    'GET /v1/user/subscription': () => jsonResponse({ tier: 'free', character_count: 0, character_limit: 10000 }),
    'POST /v1/user/onboarding-survey-complete': ({ body }: { body: unknown }) => {
      const b = body as { first_name?: string; role?: string };
      if (b.first_name === 'Bad\u0001') {
        return jsonResponse(
          { detail: [{ loc: ['body', 'first_name'], msg: 'The text must not contain control characters.', type: 'value_error' }] },
          422,
        );
      }
      state.done = true;
      state.survey = body;
      return jsonResponse({ is_onboarding_completed: true });
    },
    'POST /v1/user/onboarding-checklist/initiate': () =>
      jsonResponse({ onboarding_checklist: { checklist_id: 'c1', items: [], hidden: false }, is_onboarding_checklist_completed: false }),
  };
  return { state, handlers };
}

describe('onboarding routing rules', () => {
  it('sends only users with a pending survey, from everywhere but the essentials', () => {
    const pending = { is_onboarding_completed: false };
    expect(onboardingRedirect(pending, { pathname: '/app/speech-synthesis/text-to-speech', search: '' })).toBe('/app/onboarding');
    expect(onboardingRedirect(pending, { pathname: '/app/usage', search: '?x=1' })).toBe(
      '/app/onboarding?redirect=%2Fapp%2Fusage%3Fx%3D1',
    );
    expect(onboardingRedirect(pending, { pathname: '/app/settings' })).toBeNull();
    expect(onboardingRedirect(pending, { pathname: '/app/settings/security' })).toBeNull();
    expect(onboardingRedirect(pending, { pathname: '/app/settings/api-keys' })).toBe(
      '/app/onboarding?redirect=%2Fapp%2Fsettings%2Fapi-keys',
    );
    // Existing users (true, the spec's default) and an account not loaded are let through.
    expect(onboardingRedirect({ is_onboarding_completed: true }, { pathname: '/app/usage' })).toBeNull();
    expect(onboardingRedirect({}, { pathname: '/app/usage' })).toBeNull();
    expect(onboardingRedirect(undefined, { pathname: '/app/usage' })).toBeNull();
    expect(openDuringOnboarding('/app/onboarding/next')).toBe(true);
    expect(openDuringOnboarding('/app/onboardingx')).toBe(false);
  });

  it('returns only to same-origin app paths', () => {
    expect(safeOnboardingRedirect('/app/usage?tab=1')).toBe('/app/usage?tab=1');
    for (const bad of ['//evil.test/app', '/\\evil.test', 'https://evil.test/app', '/docs', '/application', '/app/onboarding', '/app/onboarding/next', '', null]) {
      expect(safeOnboardingRedirect(bad)).toBeNull();
    }
    expect(afterOnboarding('//evil.test')).toBe('/app/speech-synthesis/text-to-speech');
  });

  it('suggests the API first to developers', () => {
    expect(landingsFor('Developer')[0]!.title).toBe('API keys');
    expect(landingsFor('Content creator')[0]!.title).toBe('Text to Speech');
  });
});

describe('onboarding survey for a new account', () => {
  it('sends a new user to the survey, then to what next, then where they were going — by keyboard', async () => {
    const { state, handlers } = account(false);
    const { calls } = mockFetch(handlers);
    const router = renderApp('/app/usage');

    await waitFor(() => expect(router.state.location.pathname).toBe('/app/onboarding'));
    expect(router.state.location.search).toBe('?redirect=%2Fapp%2Fusage');
    expect(await screen.findByRole('heading', { name: 'Welcome to Timbre' })).toBeInTheDocument();
    // The app shell is not shown behind the survey.
    expect(screen.queryByRole('button', { name: 'User menu' })).not.toBeInTheDocument();

    const user = userEvent.setup();
    const first = screen.getByLabelText('First name');
    expect(first).toHaveFocus();
    // Enter with nothing chosen: the errors, and the focus on the first field to fix.
    await user.keyboard('{Enter}');
    expect(await screen.findByText('Please enter your first name.')).toBeInTheDocument();
    expect(screen.getByText('Please choose a role.')).toBeInTheDocument();
    expect(first).toHaveFocus();
    expect(calls.some((c) => c.url.pathname === '/v1/user/onboarding-survey-complete')).toBe(false);

    await user.type(first, 'Ada');
    await user.tab();
    expect(screen.getByLabelText('What do you do?')).toHaveFocus();
    await user.selectOptions(screen.getByLabelText('What do you do?'), 'Developer');
    await user.type(screen.getByLabelText('Your speciality (optional)'), '  Audio tools ');
    await user.click(screen.getByRole('button', { name: 'Continue' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/app/onboarding/next'));
    const sent = calls.find((c) => c.url.pathname === '/v1/user/onboarding-survey-complete')!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ first_name: 'Ada', role: 'Developer', subrole: 'Audio tools' });
    expect(sent).not.toHaveProperty('source');
    expect(state.done).toBe(true);
    expect(calls.some((c) => c.url.pathname === '/v1/user/onboarding-checklist/initiate')).toBe(true);

    const heading = await screen.findByRole('heading', { name: /You’re all set/ });
    await waitFor(() => expect(heading).toHaveFocus());
    expect(screen.getByRole('link', { name: /Text to Speech/ })).toHaveAttribute('href', '/app/speech-synthesis/text-to-speech');
    expect(screen.getByRole('link', { name: /API documentation/ })).toHaveAttribute('href', '/docs');
    await user.click(screen.getByRole('link', { name: 'Skip for now' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/usage'));
    expect(await screen.findByRole('heading', { name: 'Usage' })).toBeInTheDocument();
  });

  it('comes back to the survey from other pages until it is answered, but lets settings through', async () => {
    const { handlers } = account(false);
    mockFetch(handlers);
    let router = renderApp('/app/onboarding/next');
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/onboarding'));
    expect(await screen.findByRole('heading', { name: 'Welcome to Timbre' })).toBeInTheDocument();
    document.body.innerHTML = '';

    router = renderApp('/app/settings');
    expect(await screen.findByRole('heading', { name: 'Profile' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/app/settings');
  });

  it('shows the server’s field error from a refused survey', async () => {
    const { state, handlers } = account(false);
    mockFetch(handlers);
    renderApp('/app/onboarding');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('First name'), 'Bad\u0001');
    await user.selectOptions(screen.getByLabelText('What do you do?'), 'Other');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText('The text must not contain control characters.')).toBeInTheDocument();
    expect(state.done).toBe(false);
  });

  it('leaves existing users alone: no survey, and /app/onboarding goes on to the app', async () => {
    const { handlers } = account(true);
    mockFetch(handlers);
    let router = renderApp('/app/usage');
    expect(await screen.findByRole('heading', { name: 'Usage' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/app/usage');
    document.body.innerHTML = '';

    router = renderApp('/app/onboarding?redirect=%2Fapp%2Fusage');
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/usage'));
    expect(await screen.findByRole('heading', { name: 'Usage' })).toBeInTheDocument();
  });
});
