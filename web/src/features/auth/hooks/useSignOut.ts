import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import { broadcastSignOut, onRemoteSignOut } from '@/lib/auth-channel';
import { SIGN_IN_ROUTE } from '@/lib/constants';
import { playerStore } from '@/lib/player';
import { clearUserData } from '@/lib/storage';
import { signOut, sessionQueryKey } from '../api';

function clearLocal(queryClient: ReturnType<typeof useQueryClient>) {
  playerStore.clear();
  clearUserData();
  queryClient.cancelQueries();
  queryClient.clear();
  queryClient.setQueryData(sessionQueryKey, null);
}

/**
 * Sign-out: ends the server session, clears local data, broadcasts to other
 * tabs and goes to the sign-in page (spec §4).
 */
export function useSignOut() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const busy = useRef(false);
  return useCallback(async () => {
    if (busy.current) return;
    busy.current = true;
    try {
      await signOut().catch(() => undefined); // local sign-out happens regardless
      clearLocal(queryClient);
      broadcastSignOut();
      navigate(SIGN_IN_ROUTE, { replace: true });
    } finally {
      busy.current = false;
    }
  }, [queryClient, navigate]);
}

/** Follows sign-outs that happen in other tabs. */
export function useRemoteSignOut() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  useEffect(
    () =>
      onRemoteSignOut(() => {
        clearLocal(queryClient);
        navigate(SIGN_IN_ROUTE, { replace: true });
      }),
    [queryClient, navigate],
  );
}
