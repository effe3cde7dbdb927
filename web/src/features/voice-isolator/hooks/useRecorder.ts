import { useRecorder as useMicRecorder } from '@/lib/useRecorder';
import { MAX_RECORDING_SECONDS } from '../api/model';

export type { RecorderState } from '@/lib/useRecorder';

/** The shared recorder, stopping at the isolator's limit (an hour). */
export const useRecorder = (onRecorded: (file: File) => void) => useMicRecorder(onRecorded, MAX_RECORDING_SECONDS);
