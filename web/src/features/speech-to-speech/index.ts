export { SpeechToSpeechPage } from './components/SpeechToSpeechPage';
