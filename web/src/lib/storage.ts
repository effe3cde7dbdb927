/** Small localStorage helpers. All Timbre keys start with `timbre.`. */

export const STORAGE_PREFIX = 'timbre.';

export const STORAGE_KEYS = {
  theme: 'timbre.theme',
  selectedVoice: 'timbre.tts.voiceId',
  selectedModel: 'timbre.tts.modelId',
  outputFormat: 'timbre.tts.outputFormat',
  ttsText: 'timbre.tts.text',
  voiceSettings: 'timbre.tts.voiceSettings',
  signOutEvent: 'timbre.signOut',
  playerSpeed: 'timbre.player.speed',
} as const;

/** Keys that survive sign-out (device preferences, not user data). */
const KEPT_ON_SIGN_OUT = new Set<string>([STORAGE_KEYS.theme, STORAGE_KEYS.signOutEvent]);

export function getItem(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function setItem(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    /* storage unavailable (private mode): ignore */
  }
}

/** Clears the signed-in user's local data (spec §4: sign-out clears local data). */
export function clearUserData(): void {
  try {
    const remove: string[] = [];
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.startsWith(STORAGE_PREFIX) && !KEPT_ON_SIGN_OUT.has(key)) remove.push(key);
    }
    remove.forEach((k) => localStorage.removeItem(k));
    sessionStorage.clear();
  } catch {
    /* ignore */
  }
}
