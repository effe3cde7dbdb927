import { useSyncExternalStore } from 'react';
import { TIMINGS, TOAST_LIMIT } from './constants';

export type ToastKind = 'info' | 'success' | 'error';

export interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
}

let toasts: Toast[] = [];
let nextId = 1;
const timers = new Map<number, ReturnType<typeof setTimeout>>();
const listeners = new Set<() => void>();

function emit() {
  listeners.forEach((l) => l());
}

export function dismissToast(id: number): void {
  const timer = timers.get(id);
  if (timer) clearTimeout(timer);
  timers.delete(id);
  toasts = toasts.filter((t) => t.id !== id);
  emit();
}

/** Shows a toast for 5555 ms; at most 3 are visible (oldest dropped). */
export function toast(message: string, kind: ToastKind = 'info'): number {
  const id = nextId++;
  toasts = [...toasts, { id, kind, message }];
  while (toasts.length > TOAST_LIMIT) {
    const oldest = toasts[0]!;
    dismissToast(oldest.id);
  }
  timers.set(
    id,
    setTimeout(() => dismissToast(id), TIMINGS.toastMs),
  );
  emit();
  return id;
}

toast.success = (message: string) => toast(message, 'success');
toast.error = (message: string) => toast(message, 'error');

export function clearToasts(): void {
  [...toasts].forEach((t) => dismissToast(t.id));
}

function subscribe(l: () => void) {
  listeners.add(l);
  return () => {
    listeners.delete(l);
  };
}

export function useToasts(): Toast[] {
  return useSyncExternalStore(
    subscribe,
    () => toasts,
    () => toasts,
  );
}
