import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { broadcastSignOut, onRemoteSignOut } from '@/lib/auth-channel';
import { SIGN_IN_ROUTE, TIMINGS } from '@/lib/constants';
import { playerStore } from '@/lib/player';
import { clearUserData } from '@/lib/storage';
import { signOut, sessionQueryKey } from './session';
import { clearToasts } from '@/lib/toast';

function clearLocal(queryClient: QueryClient) {
  playerStore.clear();
  clearToasts(); // the signed-in session's messages don't belong on the sign-in page
  clearUserData();
  void queryClient.cancelQueries();
  queryClient.clear();
  queryClient.setQueryData(sessionQueryKey, null);
}

/** One pending sign-out for the whole page (the menu may exist twice: sidebar and drawer). */
let pending: ReturnType<typeof setTimeout> | undefined;
let running = false;

/** Test helper: forget a scheduled sign-out. */
export function cancelPendingSignOut(): void {
  clearTimeout(pending);
  pending = undefined;
}

/**
 * Sign-out, debounced by 1 s (spec §4, §9: "sign-out delayed 1 s"): repeated
 * calls within the second collapse into one. It then ends the server session,
 * clears local data, broadcasts to other tabs and goes to the sign-in page.
 */
export function useSignOut() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const latest = useRef({ queryClient, navigate });
  latest.current = { queryClient, navigate };
  return useCallback(() => {
    clearTimeout(pending);
    pending = setTimeout(() => {
      pending = undefined;
      if (running) return;
      running = true;
      void (async () => {
        try {
          await signOut().catch(() => undefined); // local sign-out happens regardless
          clearLocal(latest.current.queryClient);
          broadcastSignOut();
          latest.current.navigate(SIGN_IN_ROUTE, { replace: true });
        } finally {
          running = false;
        }
      })();
    }, TIMINGS.signOutDebounceMs);
  }, []);
}

/** Pages a signed-out visitor may stay on when another tab signs out. */
const PUBLIC_PATHS = ['/app/sign-in', '/app/sign-up', '/app/action', '/app/sso', '/app/invite', '/app/dev/mailbox', '/share/'];

export function isPublicPath(pathname: string): boolean {
  return PUBLIC_PATHS.some((p) => pathname === p || pathname.startsWith(p.endsWith('/') ? p : `${p}/`));
}

/**
 * Follows sign-outs that happen in other tabs (BroadcastChannel, or the
 * storage event): local data is cleared and signed-in pages go to sign-in.
 */
export function useRemoteSignOut() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const path = useRef(pathname);
  path.current = pathname;
  useEffect(
    () =>
      onRemoteSignOut(() => {
        cancelPendingSignOut();
        clearLocal(queryClient);
        if (!isPublicPath(path.current)) navigate(SIGN_IN_ROUTE, { replace: true });
      }),
    [queryClient, navigate],
  );
}
