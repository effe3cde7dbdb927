export { TextToSpeechPage, type EditorDraft } from './components/TextToSpeechPage';
