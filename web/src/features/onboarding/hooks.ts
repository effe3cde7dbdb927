import { useQuery } from '@tanstack/react-query';
import { accountUserQueryKey, getAccountUser } from './api';

/** How often the account fields refresh (checklist items complete on server-side events). */
export const ACCOUNT_POLL_MS = 60_000;

/** GET /v1/user with the account-extras fields. */
export function useAccountUser(enabled = true) {
  return useQuery({
    queryKey: accountUserQueryKey,
    queryFn: getAccountUser,
    enabled,
    refetchInterval: ACCOUNT_POLL_MS,
    refetchOnWindowFocus: true,
  });
}
