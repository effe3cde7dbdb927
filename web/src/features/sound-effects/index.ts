export { SoundEffectsPage, type SoundEffectsTab } from './components/SoundEffectsPage';
