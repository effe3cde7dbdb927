export { PlayerStore, PLAYER_TIMINGS, fetchHistoryItem } from './store';
export type {
  Downloader,
  HistoryItemFetcher,
  HistoryLookup,
  PlayerItem,
  PlayerItemType,
  PlayerState,
  PlayerStatus,
  PlayerStoreOptions,
} from './store';
export { PlayerProvider, playerStore, usePlayerSelector, usePlayerState, usePlayerStore } from './context';
export { downloadPlayerItem } from './download';
