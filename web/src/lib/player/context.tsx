import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';
import { PlayerStore, type PlayerState } from './store';

/** The app-wide player. Tests may provide their own store. */
export const playerStore = new PlayerStore();

const PlayerContext = createContext<PlayerStore>(playerStore);

export function PlayerProvider({ store = playerStore, children }: { store?: PlayerStore; children: ReactNode }) {
  return <PlayerContext.Provider value={store}>{children}</PlayerContext.Provider>;
}

export function usePlayerStore(): PlayerStore {
  return useContext(PlayerContext);
}

export function usePlayerState(): PlayerState {
  const store = usePlayerStore();
  return useSyncExternalStore(store.subscribe, store.getState, store.getState);
}
