export { ConsentBanner } from './components/ConsentBanner';
export { CcpaPrompt } from './components/CcpaPrompt';
export {
  analyticsAllowed,
  ccpaAction,
  CCPA_STATES,
  initialConsent,
  isCcpaRegion,
  isEuropeanTimeZone,
  optOutOfCcpa,
  storedCcpaOptOut,
  type AnalyticsConsent,
} from './api';
