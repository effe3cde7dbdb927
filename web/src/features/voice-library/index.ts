export { VoiceLibraryPage } from './components/VoiceLibraryPage';
