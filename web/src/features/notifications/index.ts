export { NotificationsBell } from './components/NotificationsBell';
export { unreadBadge, withRead, type Message, type MessageList } from './api';
