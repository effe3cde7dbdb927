import { useState } from 'react';
import { DropZone } from '@/components/upload/DropZone';
import { UploadProgress } from '@/components/upload/UploadProgress';
import { useUpload } from '@/components/upload/useUpload';
import { httpErrorMessage } from '@/lib/api';
import { uploadForTranscription, type Transcription } from '../api';
import { ACCEPTED_FILES, DEFAULT_SETTINGS, settingsProblems, transcriptionProgress, type TranscriptionSettings } from '../api/model';
import { TranscriptionOptions } from './TranscriptionOptions';

/** Reads a file's duration in the browser (best effort: undefined when it cannot tell). */
function audioDuration(file: File): Promise<number | undefined> {
  return new Promise((resolve) => {
    if (typeof URL.createObjectURL !== 'function') return resolve(undefined);
    const url = URL.createObjectURL(file);
    const el = document.createElement('audio');
    const done = (d?: number) => {
      URL.revokeObjectURL(url);
      resolve(d !== undefined && Number.isFinite(d) ? d : undefined);
    };
    el.preload = 'metadata';
    el.onloadedmetadata = () => done(el.duration);
    el.onerror = () => done(undefined);
    el.src = url;
    setTimeout(() => done(undefined), 3000);
  });
}

/**
 * Drop or pick an audio or video file: it uploads with a progress bar, then the bar follows an
 * estimate of the transcription until the server answers with the transcript.
 */
export function UploadPanel({ onTranscribed }: { onTranscribed: (t: Transcription) => void }) {
  const upload = useUpload(httpErrorMessage);
  const [settings, setSettings] = useState<TranscriptionSettings>(DEFAULT_SETTINGS);
  const [audioSeconds, setAudioSeconds] = useState<number>();

  async function start(file: File) {
    if (upload.busy) return;
    const problem = Object.values(settingsProblems(settings))[0];
    if (problem) return upload.fail(file.name, `Check the options first: ${problem}`);
    setAudioSeconds(undefined);
    void audioDuration(file).then(setAudioSeconds);
    const t = await upload.run(file.name, file.size, (hooks) => uploadForTranscription(file, { ...hooks, settings }));
    if (t) onTranscribed(t);
  }

  return (
    <section aria-label="Upload audio" className="space-y-3">
      <DropZone accept={ACCEPTED_FILES} disabled={upload.busy} onFile={(f) => void start(f)} testId="stt-dropzone" />
      <details className="rounded-xl border border-gray-200 p-3 dark:border-gray-800">
        <summary className="cursor-pointer text-sm font-medium">Options</summary>
        <div className="mt-3">
          <TranscriptionOptions value={settings} onChange={setSettings} disabled={upload.busy} />
        </div>
      </details>
      <UploadProgress
        phase={upload.phase}
        onCancel={upload.cancel}
        processingText={(name) => `Transcribing ${name}…`}
        processingLabel="Transcription (estimated)"
        estimate={(elapsed) => transcriptionProgress(elapsed, audioSeconds)}
        testIds={{ upload: 'stt-upload-progress', processing: 'stt-transcription-progress' }}
      />
    </section>
  );
}
