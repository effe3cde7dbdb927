export { InvitePage } from './components/InvitePage';
