import { request } from '@/features/onboarding/api/request';

/** A notification (spec §3 Message). */
export interface Message {
  message_id: string;
  severity: 'info' | 'success' | 'warning' | 'error';
  title: string;
  description: string;
  needs_attention: boolean;
  create_date_unix_ms: number;
  has_been_read: boolean;
}

export interface MessageList {
  messages: Message[];
  unread_count: number;
}

export const notificationsQueryKey = ['notifications'] as const;
/** How often the bell refreshes. */
export const NOTIFICATIONS_POLL_MS = 60_000;

export const listNotifications = () => request<MessageList>('GET', '/api/notifications');
export const markNotificationRead = (id: string) =>
  request<{ message_id: string; event: 'read' }>('POST', `/api/notifications/${encodeURIComponent(id)}/read`);
export const markAllNotificationsRead = () => request<{ status: 'ok'; marked_read: number }>('POST', '/api/notifications/read-all');

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
