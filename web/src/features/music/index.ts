export { MusicPage } from './components/MusicPage';
