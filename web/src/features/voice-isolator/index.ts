export { VoiceIsolatorPage } from './components/VoiceIsolatorPage';
