import { ApiError, client, unwrap, type Schemas } from '@/lib/api';

/** The session; the server also says whether TOTP is on and whether the workspace's 2FA rule is unmet. */
export type Session = Schemas['SessionResponse'];

export const sessionQueryKey = ['session'] as const;

/** Current session, or null when signed out (401). */
export async function getSession(): Promise<Session | null> {
  try {
    return await unwrap(client.GET('/api/auth/session'));
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return null;
    throw err;
  }
}

export const signOut = () => unwrap(client.POST('/api/auth/sign-out'));
