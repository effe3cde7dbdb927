export { AiClassifierPage } from './components/AiClassifierPage';
