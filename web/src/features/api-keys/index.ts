export { ApiKeysPage } from './components/ApiKeysPage';
