import { useCallback, useState } from 'react';
import { getItem, setItem } from '@/lib/storage';

/**
 * A selection remembered in localStorage and restored (spec §4): the stored
 * id if it is still available, else `preferred` if available, else the first
 * available id. `available` is undefined while loading.
 */
export function resolveSelection(
  stored: string | null,
  available: readonly string[] | undefined,
  preferred?: string,
): string | null {
  if (!available) return stored;
  if (stored && available.includes(stored)) return stored;
  if (preferred && available.includes(preferred)) return preferred;
  return available[0] ?? null;
}

export function usePersistentSelection(
  storageKey: string,
  available: readonly string[] | undefined,
  preferred?: string,
): [string | null, (id: string) => void] {
  const [stored, setStored] = useState<string | null>(() => getItem(storageKey));
  const select = useCallback(
    (id: string) => {
      setItem(storageKey, id);
      setStored(id);
    },
    [storageKey],
  );
  return [resolveSelection(stored, available, preferred), select];
}
