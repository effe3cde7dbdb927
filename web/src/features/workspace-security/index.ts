export { SecurityPage, TrainingOptOutPanel } from './components/SecurityPage';
