export { AccountSettingsPage, ChangeEmailDialog, DeleteAccountDialog } from './components/AccountSettingsPage';
export { SettingsLayout, SettingsSection } from './components/SettingsLayout';
