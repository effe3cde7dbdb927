export { ServiceAccountsPage } from './components/ServiceAccountsPage';
