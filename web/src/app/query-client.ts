import { QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError } from '@/lib/api';

const SESSION_KEY = 'session';

export function createQueryClient(): QueryClient {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        // A 401 from any data query (not quota errors, which are 401 with
        // status quota_exceeded in the ElevenLabs API) means the session may be
        // gone: re-check it; the route guard then sends the user to sign-in.
        if (
          error instanceof ApiError &&
          error.status === 401 &&
          error.errorType !== 'quota_exceeded' &&
          query.queryKey[0] !== SESSION_KEY
        ) {
          void client.invalidateQueries({ queryKey: [SESSION_KEY] });
        }
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      },
      mutations: { retry: false },
    },
  });
  return client;
}
