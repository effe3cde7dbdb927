export { HistoryPanel } from './components/HistoryPanel';
export { historyQueryKey } from './api';
