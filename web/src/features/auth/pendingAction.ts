/**
 * An email action that needs the user signed in (verifySignInRequest) is kept
 * here while they sign in, then resumed. Only /app/action links are kept.
 */
const KEY = 'timbre.pendingAction';

export function storePendingAction(pathAndQuery: string): void {
  try {
    if (pathAndQuery.startsWith('/app/action?')) sessionStorage.setItem(KEY, pathAndQuery);
  } catch {
    /* storage unavailable */
  }
}

/** Returns and forgets the pending action. */
export function takePendingAction(): string | null {
  try {
    const v = sessionStorage.getItem(KEY);
    sessionStorage.removeItem(KEY);
    return v && v.startsWith('/app/action?') && !v.includes('//') ? v : null;
  } catch {
    return null;
  }
}
