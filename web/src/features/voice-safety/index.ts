export { VoiceSafetyDialogs, VoiceBlockedDialog, VoiceCaptchaDialog } from './components/VoiceSafetyDialogs';
