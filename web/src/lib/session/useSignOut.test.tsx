import { QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, testQueryClient } from '@/test/utils';
import { cancelPendingSignOut, useSignOut } from './useSignOut';

afterEach(() => {
  cancelPendingSignOut();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function wrapper({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={testQueryClient()}>
      <MemoryRouter initialEntries={['/app/usage']}>{children}</MemoryRouter>
    </QueryClientProvider>
  );
}

describe('useSignOut (spec §4, §9: sign-out delayed 1 s)', () => {
  it('debounces by 1 s: repeated clicks make one sign-out, 1 s after the last', async () => {
    const { calls } = mockFetch({
      'POST /api/auth/sign-out': () => new Response(null, { status: 204 }),
      'GET /api/auth/session': () => jsonResponse({}, 401),
    });
    vi.useFakeTimers();
    const { result } = renderHook(() => ({ signOut: useSignOut(), location: useLocation() }), { wrapper });

    act(() => result.current.signOut());
    await act(() => vi.advanceTimersByTimeAsync(500));
    act(() => result.current.signOut()); // again: the second restarts the wait
    await act(() => vi.advanceTimersByTimeAsync(999));
    expect(calls.filter((c) => c.url.pathname === '/api/auth/sign-out')).toHaveLength(0);
    expect(result.current.location.pathname).toBe('/app/usage');

    await act(() => vi.advanceTimersByTimeAsync(1));
    await act(() => vi.advanceTimersByTimeAsync(0));
    const signOuts = calls.filter((c) => c.url.pathname === '/api/auth/sign-out');
    expect(signOuts).toHaveLength(1);
    expect(signOuts[0]!.method).toBe('POST');
    expect(result.current.location.pathname).toBe('/app/sign-in');
    expect(localStorage.getItem('timbre.signOut')).not.toBeNull();

    await act(() => vi.advanceTimersByTimeAsync(5000));
    expect(calls.filter((c) => c.url.pathname === '/api/auth/sign-out')).toHaveLength(1);
  });

  it('signs out locally even when the server call fails', async () => {
    mockFetch({ 'POST /api/auth/sign-out': () => jsonResponse({ detail: { status: 'x' } }, 500) });
    vi.useFakeTimers();
    localStorage.setItem('timbre.tts.voiceId', 'v1');
    const { result } = renderHook(() => ({ signOut: useSignOut(), location: useLocation() }), { wrapper });
    act(() => result.current.signOut());
    await act(() => vi.advanceTimersByTimeAsync(1000));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(result.current.location.pathname).toBe('/app/sign-in');
    expect(localStorage.getItem('timbre.tts.voiceId')).toBeNull();
  });
});
