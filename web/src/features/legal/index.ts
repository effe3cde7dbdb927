export { PrivacyPage, TermsPage } from './components/LegalPages';
