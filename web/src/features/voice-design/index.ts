export { VoiceDesignPage } from './components/VoiceDesignPage';
