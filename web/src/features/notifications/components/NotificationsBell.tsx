import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { cn } from '@/components/cn';
import { AlertIcon } from '@/components/icons';
import { httpErrorMessage } from '@/lib/api';
import { toast } from '@/lib/toast';
import {
  listNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  NOTIFICATIONS_POLL_MS,
  notificationsQueryKey,
  unreadBadge,
  withRead,
  type Message,
  type MessageList,
} from '../api';

function BellIcon({ size = 16 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
    </svg>
  );
}

const SEVERITY_DOT: Record<Message['severity'], string> = {
  info: 'bg-sky-500',
  success: 'bg-emerald-500',
  warning: 'bg-amber-500',
  error: 'bg-red-500',
};

function when(ms: number): string {
  try {
    return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  } catch {
    return '';
  }
}

/** The notifications bell: unread count, and the list (needs-attention highlighted, mark read). */
export function NotificationsBell({ className }: { className?: string }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const rootRef = useRef<HTMLDivElement>(null);
  const query = useQuery({
    queryKey: notificationsQueryKey,
    queryFn: listNotifications,
    refetchInterval: NOTIFICATIONS_POLL_MS,
  });
  const unread = query.data?.unread_count ?? 0;
  const badge = unreadBadge(unread);

  const markRead = useMutation({
    mutationFn: markNotificationRead,
    onMutate: (id: string) => {
      const prev = queryClient.getQueryData<MessageList>(notificationsQueryKey);
      if (prev) queryClient.setQueryData(notificationsQueryKey, withRead(prev, id));
      return { prev };
    },
    onError: (err, _id, ctx) => {
      if (ctx?.prev) queryClient.setQueryData(notificationsQueryKey, ctx.prev);
      toast.error(httpErrorMessage(err));
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: notificationsQueryKey }),
  });
  const markAll = useMutation({
    mutationFn: markAllNotificationsRead,
    onError: (err) => toast.error(httpErrorMessage(err)),
    onSettled: () => queryClient.invalidateQueries({ queryKey: notificationsQueryKey }),
  });

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    const onClick = (e: MouseEvent) => {
      if (rootRef.current && !rootRef.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('mousedown', onClick);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('mousedown', onClick);
    };
  }, [open]);

  const messages = query.data?.messages ?? [];
  return (
    <div ref={rootRef} className={cn('relative', className)}>
      <button
        type="button"
        aria-label={unread > 0 ? `Notifications, ${unread} unread` : 'Notifications'}
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
        className="relative flex size-9 cursor-pointer items-center justify-center rounded-lg text-gray-600 hover:bg-gray-100 dark:text-gray-300 dark:hover:bg-gray-800"
      >
        <BellIcon />
        {badge && (
          <span
            data-testid="notifications-badge"
            className="absolute -top-0.5 -right-0.5 min-w-4 rounded-full bg-red-600 px-1 text-center text-[10px] leading-4 font-semibold text-white"
          >
            {badge}
          </span>
        )}
      </button>
      {open && (
        <div
          id={panelId}
          role="region"
          aria-label="Notifications"
          className="fixed top-16 left-4 z-50 w-80 max-w-[calc(100vw-2rem)] rounded-xl border border-gray-200 bg-white p-2 text-sm shadow-lg dark:border-gray-800 dark:bg-gray-900 dark:text-gray-100"
        >
          <div className="flex items-center justify-between px-2 py-1">
            <h2 className="font-semibold">Notifications</h2>
            <button
              type="button"
              disabled={unread === 0 || markAll.isPending}
              onClick={() => markAll.mutate()}
              className="cursor-pointer rounded px-1 text-xs text-gray-600 hover:underline disabled:cursor-default disabled:opacity-50 dark:text-gray-400"
            >
              Mark all as read
            </button>
          </div>
          {query.isError && <p className="px-2 py-3 text-red-600">{httpErrorMessage(query.error)}</p>}
          {!query.isError && messages.length === 0 && (
            <p className="px-2 py-6 text-center text-gray-500">{query.isLoading ? 'Loading…' : 'No notifications yet.'}</p>
          )}
          <ul className="max-h-96 space-y-1 overflow-y-auto">
            {messages.map((m) => (
              <li key={m.message_id}>
                <div
                  data-testid="notification"
                  data-needs-attention={m.needs_attention || undefined}
                  data-read={m.has_been_read || undefined}
                  className={cn(
                    'rounded-lg border px-3 py-2',
                    m.needs_attention
                      ? 'border-amber-300 bg-amber-50 dark:border-amber-700 dark:bg-amber-950/40'
                      : 'border-transparent',
                  )}
                >
                  <div className="flex items-start gap-2">
                    <span className={cn('mt-1.5 size-2 shrink-0 rounded-full', SEVERITY_DOT[m.severity] ?? 'bg-gray-400')} aria-hidden="true" />
                    <div className="min-w-0 flex-1">
                      <p className={cn('break-words', m.has_been_read ? 'text-gray-600 dark:text-gray-400' : 'font-semibold')}>
                        {m.needs_attention && (
                          <>
                            <AlertIcon size={13} className="mr-1 inline text-amber-600" />
                            <span className="sr-only">Needs attention: </span>
                          </>
                        )}
                        {m.title}
                      </p>
                      {m.description && <p className="mt-0.5 break-words text-gray-600 dark:text-gray-400">{m.description}</p>}
                      <p className="mt-1 text-xs text-gray-500">{when(m.create_date_unix_ms)}</p>
                    </div>
                    {!m.has_been_read && (
                      <button
                        type="button"
                        onClick={() => markRead.mutate(m.message_id)}
                        aria-label={`Mark “${m.title}” as read`}
                        className="shrink-0 cursor-pointer rounded px-1 text-xs text-gray-600 hover:underline dark:text-gray-400"
                      >
                        Mark read
                      </button>
                    )}
                  </div>
                </div>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
