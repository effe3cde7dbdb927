import { useCallback, useSyncExternalStore } from 'react';
import { getItem, setItem, STORAGE_KEYS } from './storage';

export type Theme = 'light' | 'dark';

const listeners = new Set<() => void>();

export function readTheme(): Theme {
  return getItem(STORAGE_KEYS.theme) === 'dark' ? 'dark' : 'light';
}

export function applyTheme(theme: Theme): void {
  document.documentElement.classList.toggle('dark', theme === 'dark');
  document.documentElement.style.colorScheme = theme;
}

export function writeTheme(theme: Theme): void {
  setItem(STORAGE_KEYS.theme, theme);
  applyTheme(theme);
  listeners.forEach((l) => l());
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  const onStorage = (e: StorageEvent) => {
    if (e.key === STORAGE_KEYS.theme) {
      applyTheme(readTheme());
      listener();
    }
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

/** Theme (light or dark), stored in localStorage, default light (spec §4). */
export function useTheme() {
  const theme = useSyncExternalStore(subscribe, readTheme, () => 'light' as Theme);
  const toggle = useCallback(() => writeTheme(readTheme() === 'dark' ? 'light' : 'dark'), []);
  return { theme, setTheme: writeTheme, toggle };
}
