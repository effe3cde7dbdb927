import { dismissToast, useToasts } from '@/lib/toast';
import { cn } from './cn';
import { CloseIcon } from './icons';

export type ToasterPosition = 'top-center' | 'bottom-right';

/** Toasts: top-centre on sign-in/sign-up, bottom-right elsewhere (spec §2). */
export function Toaster({ position }: { position: ToasterPosition }) {
  const toasts = useToasts();
  return (
    <div
      aria-live="polite"
      aria-relevant="additions"
      className={cn(
        'pointer-events-none fixed z-[60] flex w-full max-w-sm flex-col gap-2 p-4',
        position === 'top-center'
          ? 'top-0 left-1/2 -translate-x-1/2 items-center'
          : 'right-0 bottom-[calc(var(--player-offset,0px))] items-end',
      )}
      data-position={position}
    >
      {toasts.map((t) => (
        <div
          key={t.id}
          role={t.kind === 'error' ? 'alert' : 'status'}
          className={cn(
            'pointer-events-auto flex w-full items-start gap-3 rounded-xl border px-4 py-3 text-sm shadow-lg animate-toast-in',
            t.kind === 'error'
              ? 'border-red-200 bg-red-50 text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100'
              : t.kind === 'success'
                ? 'border-emerald-200 bg-emerald-50 text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950 dark:text-emerald-100'
                : 'border-gray-200 bg-white text-gray-900 dark:border-gray-700 dark:bg-gray-900 dark:text-gray-100',
          )}
        >
          <span className="flex-1">{t.message}</span>
          <button
            type="button"
            aria-label="Dismiss notification"
            onClick={() => dismissToast(t.id)}
            className="-mr-1 cursor-pointer rounded p-0.5 opacity-60 hover:opacity-100"
          >
            <CloseIcon size={14} />
          </button>
        </div>
      ))}
    </div>
  );
}
