import { client, unwrap, type Schemas } from '@/lib/api';

/** A notification (spec §3 Message). */
export type Message = Schemas['AccountMessage'];
export type MessageList = Schemas['AccountMessageList'];

export const notificationsQueryKey = ['notifications'] as const;
/** How often the bell refreshes. */
export const NOTIFICATIONS_POLL_MS = 60_000;

export const listNotifications = () => unwrap(client.GET('/api/notifications'));
export const markNotificationRead = (id: string) =>
  unwrap(client.POST('/api/notifications/{message_id}/read', { params: { path: { message_id: id } } }));
export const markAllNotificationsRead = () => unwrap(client.POST('/api/notifications/read-all'));

/** The bell's badge text: nothing at 0, the count up to 9, then 9+. */
export function unreadBadge(count: number): string {
  if (count <= 0) return '';
  return count > 9 ? '9+' : String(count);
}

/** The list with one message marked read (optimistic update). */
export function withRead(list: MessageList, id: string): MessageList {
  let changed = 0;
  const messages = list.messages.map((m) => {
    if (m.message_id !== id || m.has_been_read) return m;
    changed++;
    return { ...m, has_been_read: true };
  });
  return { messages, unread_count: Math.max(0, list.unread_count - changed) };
}
