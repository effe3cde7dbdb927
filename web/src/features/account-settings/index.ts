export { AccountSettingsPage, ChangeEmailDialog, DeleteAccountDialog } from './components/AccountSettingsPage';
