export { TextToSpeechPage } from './components/TextToSpeechPage';
