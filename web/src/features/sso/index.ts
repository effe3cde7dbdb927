export { SsoSignInPage } from './components/SsoSignInPage';
export { SsoDomainsPanel } from './components/SsoDomainsPanel';
export { SsoRequiredPanel } from './components/SsoRequiredPanel';
export { browser, SSO_REQUIRED, ssoErrorText, ssoStartUrl } from './api';
