export { SpeechToTextPage } from './components/SpeechToTextPage';
