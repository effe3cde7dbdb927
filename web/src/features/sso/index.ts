export { SsoSignInPage } from './components/SsoSignInPage';
export { ssoErrorText, ssoStartUrl } from './api';
