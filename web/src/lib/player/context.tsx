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

/** A slice of the player state; re-renders only when the (primitive) result changes. */
export function usePlayerSelector<T>(selector: (state: PlayerState) => T): T {
  const store = usePlayerStore();
  const get = () => selector(store.getState());
  return useSyncExternalStore(store.subscribe, get, get);
}
