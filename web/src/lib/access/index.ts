export {
  accessQueryKey,
  DUTIES,
  FEATURES,
  featureAllowed,
  getAccess,
  holdsDuty,
  isFeatureNotAllowed,
  useWorkspaceAccess,
  type Duty,
  type Feature,
  type WorkspaceAccess,
} from './api';
export {
  canAccessSettingsQueryKey,
  getCanAccessSettings,
  getIsAdmin,
  isAdminQueryKey,
  useAdminOrDuty,
  useCanAccessWorkspaceSettings,
  useWorkspaceRole,
} from './role';
