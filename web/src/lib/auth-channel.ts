import { STORAGE_KEYS } from './storage';

/**
 * Cross-tab sign-out: BroadcastChannel where available, with a localStorage
 * `storage` event as fallback (spec §4: sign-out broadcasts to other tabs).
 */
const CHANNEL = 'timbre-auth';

type Message = { type: 'sign-out'; at: number };

/** Our own last broadcast: BroadcastChannel also reaches other channels in this tab. */
let lastLocalSignOut = 0;

export function broadcastSignOut(): void {
  const message: Message = { type: 'sign-out', at: Date.now() };
  lastLocalSignOut = message.at;
  try {
    if (typeof BroadcastChannel !== 'undefined') {
      const ch = new BroadcastChannel(CHANNEL);
      ch.postMessage(message);
      ch.close();
    }
  } catch {
    /* ignore */
  }
  try {
    localStorage.setItem(STORAGE_KEYS.signOutEvent, String(message.at));
  } catch {
    /* ignore */
  }
}

/** Calls `onSignOut` when another tab signs out. Returns an unsubscribe function. */
export function onRemoteSignOut(onSignOut: () => void): () => void {
  let channel: BroadcastChannel | undefined;
  let last = 0;
  const fire = (at: number) => {
    if (at === last || at === lastLocalSignOut) return; // duplicate transport, or our own sign-out
    last = at;
    onSignOut();
  };
  try {
    if (typeof BroadcastChannel !== 'undefined') {
      channel = new BroadcastChannel(CHANNEL);
      channel.onmessage = (e: MessageEvent<Message>) => {
        if (e.data?.type === 'sign-out') fire(e.data.at);
      };
    }
  } catch {
    channel = undefined;
  }
  const onStorage = (e: StorageEvent) => {
    if (e.key === STORAGE_KEYS.signOutEvent && e.newValue) fire(Number(e.newValue));
  };
  window.addEventListener('storage', onStorage);
  return () => {
    channel?.close();
    window.removeEventListener('storage', onStorage);
  };
}
