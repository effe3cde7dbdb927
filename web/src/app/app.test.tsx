import { QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CrashFallback } from '@/components/ErrorBoundary';
import { PlayerProvider, PlayerStore } from '@/lib/player';
import { jsonResponse, mockFetch, testQueryClient } from '@/test/utils';
import { toasterPositionFor } from './RootLayout';
import { routes } from './router';

afterEach(() => vi.unstubAllGlobals());

const session = { user_id: 'u1', email: 'ada@example.com', email_verified: true, workspace_id: 'w1', first_name: 'Ada' };

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

const appHandlers = {
  'GET /api/auth/session': () => jsonResponse(session),
  'GET /v1/user/subscription': () => jsonResponse({ tier: 'free', character_count: 1234, character_limit: 10000 }),
  'GET /v1/user/api-keys': () =>
    jsonResponse({ api_keys: [{ key_id: 'k1', name: 'CI', key_preview: 'sk_…abcd', created_at_unix: 1_700_000_000 }] }),
};

describe('app routes', () => {
  it('sends signed-out users to sign-in with a redirect back', async () => {
    mockFetch({ 'GET /api/auth/session': () => jsonResponse({ detail: { status: 'unauthorized' } }, 401) });
    const router = renderApp('/app/usage');
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/sign-in'));
    expect(router.state.location.search).toBe('?redirect=%2Fapp%2Fusage');
    expect(await screen.findByLabelText('Email')).toBeInTheDocument();
  });

  it('shows the shell with the usage meter and the API keys page (both paths)', async () => {
    mockFetch(appHandlers);
    renderApp('/app/developers/api-keys');
    expect(await screen.findByRole('heading', { name: 'API keys' })).toBeInTheDocument();
    expect(await screen.findByText('CI')).toBeInTheDocument();
    expect(screen.getAllByTestId('usage-meter')[0]).toHaveTextContent('1,234 / 10,000');
  });

  it('creates an API key and shows it once', async () => {
    mockFetch({
      ...appHandlers,
      'POST /v1/user/create-api-key': () =>
        jsonResponse({ key_id: 'k2', name: 'Laptop', xi_api_key: 'sk_secret_value', key_preview: 'sk_…alue' }),
    });
    const user = userEvent.setup();
    renderApp('/app/settings/api-keys');
    await user.click(await screen.findByRole('button', { name: /Create API key/ }));
    await user.type(await screen.findByLabelText('Name'), 'Laptop');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByTestId('new-api-key')).toHaveTextContent('sk_secret_value');
    expect(screen.getByText(/will not be shown again/)).toBeInTheDocument();
  });

  it('sign out waits 1 s, then clears local data, broadcasts, and goes to sign-in', async () => {
    let signedIn = true;
    const { calls } = mockFetch({
      ...appHandlers,
      'GET /api/auth/session': () => (signedIn ? jsonResponse(session) : jsonResponse({}, 401)),
      'POST /api/auth/sign-out': () => {
        signedIn = false;
        return new Response(null, { status: 204 });
      },
    });
    localStorage.setItem('timbre.tts.voiceId', 'v1');
    localStorage.setItem('timbre.theme', 'dark');
    const received: unknown[] = [];
    const other = new BroadcastChannel('timbre-auth');
    other.onmessage = (e) => received.push(e.data);

    const user = userEvent.setup();
    const router = renderApp('/app/usage');
    await user.click((await screen.findAllByRole('button', { name: 'User menu' }))[0]!);
    await user.click(await screen.findByRole('menuitem', { name: 'Sign out' }));
    // Debounced by 1 s (spec §9): nothing has happened yet.
    expect(calls.some((c) => c.url.pathname === '/api/auth/sign-out')).toBe(false);
    expect(router.state.location.pathname).toBe('/app/usage');

    await waitFor(() => expect(router.state.location.pathname).toBe('/app/sign-in'), { timeout: 3000 });
    expect(calls.some((c) => c.method === 'POST' && c.url.pathname === '/api/auth/sign-out')).toBe(true);
    expect(localStorage.getItem('timbre.tts.voiceId')).toBeNull();
    expect(localStorage.getItem('timbre.theme')).toBe('dark');
    expect(localStorage.getItem('timbre.signOut')).not.toBeNull();
    await waitFor(() => expect(received).toEqual([expect.objectContaining({ type: 'sign-out' })]));
    other.close();
  });

  it('follows a sign-out in another tab (BroadcastChannel)', async () => {
    mockFetch(appHandlers);
    localStorage.setItem('timbre.tts.voiceId', 'v1');
    const router = renderApp('/app/usage');
    expect(await screen.findByRole('heading', { name: 'Usage' })).toBeInTheDocument();
    const otherTab = new BroadcastChannel('timbre-auth');
    otherTab.postMessage({ type: 'sign-out', at: Date.now() + 1 });
    otherTab.close();
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/sign-in'));
    expect(localStorage.getItem('timbre.tts.voiceId')).toBeNull();
  });

  it('follows a sign-out in another tab (storage event fallback), but leaves public pages alone', async () => {
    mockFetch({
      ...appHandlers,
      'GET /api/share/tok1': () => jsonResponse({ text: 'Shared words', voice_name: 'Aria', date_unix: 1_700_000_000 }),
    });
    const router = renderApp('/share/tok1');
    expect(await screen.findByText('Shared words')).toBeInTheDocument();
    window.dispatchEvent(new StorageEvent('storage', { key: 'timbre.signOut', newValue: String(Date.now() + 2) }));
    await new Promise((r) => setTimeout(r, 20));
    expect(router.state.location.pathname).toBe('/share/tok1');
    expect(screen.getByText('Shared words')).toBeInTheDocument();
  });

  it('follows a sign-out in another tab (storage event fallback) on signed-in pages', async () => {
    mockFetch(appHandlers);
    const router = renderApp('/app/usage');
    expect(await screen.findByRole('heading', { name: 'Usage' })).toBeInTheDocument();
    window.dispatchEvent(new StorageEvent('storage', { key: 'timbre.signOut', newValue: String(Date.now() + 3) }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/sign-in'));
  });

  it('leaving the auth pages fades them out over 0.3 s', async () => {
    mockFetch({
      'GET /api/auth/session': () => jsonResponse({ detail: { status: 'unauthorized' } }, 401),
      'GET /api/share/tok1': () => jsonResponse({ text: 'Shared words', voice_name: 'Aria', date_unix: 1_700_000_000 }),
    });
    const router = renderApp('/app/sign-in');
    expect(await screen.findByLabelText('Email')).toBeInTheDocument();
    expect(screen.getByTestId('auth-layout')).toHaveClass('animate-fade-in');
    // Moving between auth pages is not leaving.
    await act(() => router.navigate('/app/sign-up'));
    expect(router.state.location.pathname).toBe('/app/sign-up');
    expect(screen.getByTestId('auth-layout')).not.toHaveAttribute('data-leaving');

    vi.useFakeTimers();
    try {
      act(() => void router.navigate('/share/tok1'));
      await act(() => vi.advanceTimersByTimeAsync(0));
      expect(router.state.location.pathname).toBe('/app/sign-up');
      expect(screen.getByTestId('auth-layout')).toHaveAttribute('data-leaving', 'true');
      expect(screen.getByTestId('auth-layout')).toHaveClass('animate-fade-out');
      await act(() => vi.advanceTimersByTimeAsync(299));
      expect(router.state.location.pathname).toBe('/app/sign-up');
      await act(() => vi.advanceTimersByTimeAsync(1));
      expect(router.state.location.pathname).toBe('/share/tok1');
      await act(() => vi.advanceTimersByTimeAsync(50));
      expect(screen.getByText('Shared words')).toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it('the share page is public', async () => {
    mockFetch({
      'GET /api/share/tok1': () => jsonResponse({ text: 'Shared words', voice_name: 'Aria', date_unix: 1_700_000_000 }),
    });
    renderApp('/share/tok1');
    expect(await screen.findByText('Shared words')).toBeInTheDocument();
    expect(screen.getByLabelText('Audio: Aria')).toHaveAttribute('src', '/api/share/tok1/audio');
  });

  it('toasts: top-centre on sign-in/up, bottom-right elsewhere', () => {
    expect(toasterPositionFor('/app/sign-in')).toBe('top-center');
    expect(toasterPositionFor('/app/sign-up')).toBe('top-center');
    expect(toasterPositionFor('/app/usage')).toBe('bottom-right');
  });

  it('crash fallback text', () => {
    render(<CrashFallback onRetry={() => undefined} />);
    expect(screen.getByText('Oops, something went wrong!')).toBeInTheDocument();
    expect(
      screen.getByText(
        'A client side error occurred, we are sorry about that! Please click on try again to refresh the page.',
      ),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });
});
