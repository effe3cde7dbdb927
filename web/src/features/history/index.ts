export { HistoryPanel } from './components/HistoryPanel';
export { historyQueryKey, type HistoryItem } from './api';
export { FeedbackThumbs, PlayerFeedback } from './components/FeedbackThumbs';
export { ShareWithPeopleDialog } from './components/ShareWithPeopleDialog';
