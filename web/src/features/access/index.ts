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
