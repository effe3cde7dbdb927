import { useEffect, useState } from 'react';
import { Button } from '@/components/Button';
import { MicIcon } from '@/components/icons';
import { DropZone } from '@/components/upload/DropZone';
import { formatTime } from '@/lib/format';
import { useRecorder } from '@/lib/useRecorder';
import { ACCEPTED_FILES, canRecord, MAX_RECORDING_SECONDS } from '../api/model';

/** The recording's running time, refreshed a few times a second. */
function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, []);
  return (
    <span className="tabular-nums" data-testid="isolator-recording-time">
      {formatTime((now - since) / 1000)}
    </span>
  );
}

/**
 * Where the audio comes from: a dropped file, the file picker, or a recording from the
 * microphone (offered only when the browser can record). Each hands a File to onFile.
 */
export function SourcePicker({ busy, onFile }: { busy: boolean; onFile: (file: File) => void }) {
  const [recordable] = useState(canRecord);
  const recorder = useRecorder(onFile, MAX_RECORDING_SECONDS);
  const recording = recorder.state.kind === 'recording' || recorder.state.kind === 'starting';
  const disabled = busy || recording;

  return (
    <section aria-label="Audio to clean up" className="space-y-3">
      <DropZone
        accept={ACCEPTED_FILES}
        disabled={disabled}
        onFile={onFile}
        hint="mp3, wav, m4a, ogg, flac, webm, mp4, … up to 500 MB and an hour long"
        testId="isolator-dropzone"
        inputTestId="isolator-file"
        className="p-8"
        actions={
          recordable &&
          !recording && (
            <Button variant="outline" size="sm" onClick={() => void recorder.start()} disabled={busy}>
              <MicIcon size={16} />
              Record
            </Button>
          )
        }
      />

      {recording && (
        <div
          role="status"
          data-testid="isolator-recording"
          className="flex flex-wrap items-center gap-3 rounded-xl border border-red-200 bg-red-50 p-3 text-sm dark:border-red-900 dark:bg-red-950"
        >
          <span className="size-2.5 animate-pulse rounded-full bg-red-600" aria-hidden="true" />
          {recorder.state.kind === 'starting' ? (
            <span>Opening the microphone…</span>
          ) : (
            <span>
              Recording <Elapsed since={recorder.state.kind === 'recording' ? recorder.state.since : Date.now()} />
            </span>
          )}
          <span className="flex-1" />
          <Button size="sm" onClick={recorder.stop} disabled={recorder.state.kind !== 'recording'}>
            Stop and isolate
          </Button>
          <Button size="sm" variant="ghost" onClick={recorder.cancel}>
            Discard
          </Button>
        </div>
      )}
      {recorder.state.kind === 'failed' && (
        <p role="alert" className="rounded-lg bg-red-50 p-3 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
          {recorder.state.message}
        </p>
      )}
    </section>
  );
}
