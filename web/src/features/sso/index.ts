export { SsoSignInPage } from './components/SsoSignInPage';
export { ssoErrorText } from './api';
