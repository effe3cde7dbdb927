export { VoiceLabPage } from './components/VoiceLabPage';
export { VoicePage } from './components/VoicePage';
export { ProfessionalClonePage } from './components/ProfessionalClonePage';
