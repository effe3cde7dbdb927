export { UsagePage } from './components/UsagePage';
export { UsageMeter } from './components/UsageMeter';
export { useSubscription, subscriptionQueryKey, creditsRemaining } from './api';
