export { PlayerStore } from './store';
export type { PlayerItem, PlayerItemType, PlayerState, PlayerStatus } from './store';
export { PlayerProvider, playerStore, usePlayerState, usePlayerStore } from './context';
export { downloadPlayerItem } from './download';
