export { getSession, sessionQueryKey, signOut, type Session } from './session';
export { useSession } from './useSession';
export { cancelPendingSignOut, isPublicPath, useRemoteSignOut, useSignOut } from './useSignOut';
