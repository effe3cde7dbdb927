export { PronunciationDictionariesPage } from './components/PronunciationDictionariesPage';
