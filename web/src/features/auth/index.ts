export { SignInPage } from './components/SignInPage';
export { SignUpPage } from './components/SignUpPage';
export { ForgotPasswordPage } from './components/ForgotPasswordPage';
export { ResetPasswordPage } from './components/ResetPasswordPage';
export { EmailActionPage } from './components/EmailActionPage';
