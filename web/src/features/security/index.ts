export { SecurityPage } from './components/SecurityPage';
export { TwoFactorSetupDialog } from './components/TwoFactorSetupDialog';
export { describeUserAgent } from './api';
