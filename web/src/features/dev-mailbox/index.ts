export { MailboxPage } from './components/MailboxPage';
