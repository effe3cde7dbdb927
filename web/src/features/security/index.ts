export { SecurityPage } from './components/SecurityPage';
export { TwoFactorSetupDialog } from './components/TwoFactorSetupDialog';
export { MfaChallenge } from './components/MfaChallenge';
export { ADD_2FA_ROUTE, SECURITY_ROUTE, describeUserAgent } from './api';
