export { VoiceLabPage } from './components/VoiceLabPage';
export { VoicePage } from './components/VoicePage';
