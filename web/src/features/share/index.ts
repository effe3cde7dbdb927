export { SharePage } from './components/SharePage';
