import { useQuery } from '@tanstack/react-query';
import { getSession, sessionQueryKey } from './session';

const FIVE_MINUTES = 5 * 60 * 1000;

/** The signed-in session (null when signed out); refreshed every 5 minutes (spec §4). */
export function useSession() {
  return useQuery({
    queryKey: sessionQueryKey,
    queryFn: getSession,
    staleTime: FIVE_MINUTES,
    refetchInterval: FIVE_MINUTES,
    retry: 1,
  });
}
