export { SecurityPage } from './components/SecurityPage';
export { TwoFactorSetupDialog } from './components/TwoFactorSetupDialog';
export { MfaChallenge } from './components/MfaChallenge';
export { SensitiveActionDialog, SENSITIVE_MESSAGES } from './components/SensitiveActionDialog';
export { isSensitiveVerificationRequired, withSensitiveVerification } from './sensitive';
export { ADD_2FA_ROUTE, SECURITY_ROUTE, describeUserAgent } from './api';
