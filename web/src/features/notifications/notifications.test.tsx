import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { unreadBadge, withRead, type Message, type MessageList } from './api';
import { NotificationsBell } from './components/NotificationsBell';

const msg = (id: string, over: Partial<Message> = {}): Message => ({
  message_id: id,
  severity: 'info',
  title: `Title ${id}`,
  description: '',
  needs_attention: false,
  create_date_unix_ms: 1_700_000_000_000,
  has_been_read: false,
  ...over,
});

describe('notification rules', () => {
  it('badge: nothing at zero, the count, then 9+', () => {
    expect(unreadBadge(0)).toBe('');
    expect(unreadBadge(3)).toBe('3');
    expect(unreadBadge(9)).toBe('9');
    expect(unreadBadge(10)).toBe('9+');
  });
  it('marking read lowers the unread count once', () => {
    const list: MessageList = { messages: [msg('a'), msg('b', { has_been_read: true })], unread_count: 1 };
    const once = withRead(list, 'a');
    expect(once.unread_count).toBe(0);
    expect(once.messages[0]!.has_been_read).toBe(true);
    expect(withRead(once, 'a').unread_count).toBe(0);
    expect(withRead(list, 'b').unread_count).toBe(1);
  });
});

describe('NotificationsBell', () => {
  it('shows the unread count, highlights messages needing attention, and marks read', async () => {
    let list: MessageList = {
      messages: [msg('a', { needs_attention: true, severity: 'warning', title: 'Quota almost used' }), msg('b', { title: 'Welcome' }), msg('c', { has_been_read: true, title: 'Old' })],
      unread_count: 2,
    };
    const { calls } = mockFetch({
      'GET /api/notifications': () => jsonResponse(list),
      'POST /api/notifications/a/read': () => {
        list = withRead(list, 'a');
        return jsonResponse({ message_id: 'a', event: 'read' });
      },
      'POST /api/notifications/read-all': () => {
        list = withRead(list, 'b');
        return jsonResponse({ status: 'ok', marked_read: 1 });
      },
    });
    renderWithProviders(<NotificationsBell />);
    const bell = await screen.findByRole('button', { name: 'Notifications, 2 unread' });
    expect(screen.getByTestId('notifications-badge')).toHaveTextContent('2');
    await userEvent.click(bell);
    const region = screen.getByRole('region', { name: 'Notifications' });
    const items = within(region).getAllByTestId('notification');
    expect(items).toHaveLength(3);
    expect(items[0]).toHaveAttribute('data-needs-attention', 'true');
    expect(items[0]).toHaveTextContent('Needs attention: Quota almost used');
    expect(items[1]).not.toHaveAttribute('data-needs-attention');
    expect(within(items[2]!).queryByRole('button', { name: /Mark/ })).toBeNull();

    await userEvent.click(within(region).getByRole('button', { name: 'Mark “Quota almost used” as read' }));
    await screen.findByRole('button', { name: 'Notifications, 1 unread' });
    expect(calls.some((c) => c.method === 'POST' && c.url.pathname === '/api/notifications/a/read')).toBe(true);

    await userEvent.click(within(region).getByRole('button', { name: 'Mark all as read' }));
    await screen.findByRole('button', { name: 'Notifications' });
    expect(screen.queryByTestId('notifications-badge')).toBeNull();

    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Notifications' })).toBeNull());
  });
  it('says when there is nothing', async () => {
    mockFetch({ 'GET /api/notifications': () => jsonResponse({ messages: [], unread_count: 0 }) });
    renderWithProviders(<NotificationsBell />);
    await userEvent.click(await screen.findByRole('button', { name: 'Notifications' }));
    expect(await screen.findByText('No notifications yet.')).toBeInTheDocument();
  });
});
