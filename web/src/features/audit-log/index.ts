export { AuditLogPage } from './components/AuditLogPage';
