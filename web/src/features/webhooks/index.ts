export { WebhooksPage, DeliveriesDialog } from './components/WebhooksPage';
