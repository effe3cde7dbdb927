export { GroupsPage } from './components/GroupsPage';
