export { ApiKeysPage, KeyEnabledSwitch, PermissionsCell } from './components/ApiKeysPage';
export { KeyFormDialog, PermissionPicker, quotaText, type KeyFormInitial } from './components/KeyFormDialog';
export { PERMISSIONS, editBody, permissionLabel, validateKeyForm, type KeyFormValue, type Permission } from './api';
