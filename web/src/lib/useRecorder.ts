import { useCallback, useEffect, useRef, useState } from 'react';
import { microphoneError, recordingFileName, recordingMimeType } from './recording';

export type RecorderState =
  | { kind: 'idle' }
  | { kind: 'starting' }
  | { kind: 'recording'; since: number }
  | { kind: 'failed'; message: string };

interface Session {
  stream: MediaStream;
  recorder: MediaRecorder;
  chunks: Blob[];
  cancelled: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Records from the microphone with MediaRecorder. stop() ends the recording and hands the file
 * to onRecorded; cancel() throws it away; it stops by itself after maxSeconds. The browser's own
 * noise suppression and echo cancellation are turned off: the voice isolator wants to hear what it
 * removes, and a voice clone the speaker's own sound.
 */
export function useRecorder(onRecorded: (file: File) => void, maxSeconds: number) {
  const [state, setState] = useState<RecorderState>({ kind: 'idle' });
  const session = useRef<Session | null>(null);
  // Set by cancel() (or leaving the page) while the microphone is still being opened.
  const abandoned = useRef(false);
  const onRecordedRef = useRef(onRecorded);
  onRecordedRef.current = onRecorded;

  const release = useCallback((s: Session) => {
    if (s.timer) clearTimeout(s.timer);
    s.stream.getTracks().forEach((t) => t.stop());
    if (session.current === s) session.current = null;
  }, []);

  const start = useCallback(async () => {
    if (session.current) return;
    abandoned.current = false;
    setState({ kind: 'starting' });
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
      });
    } catch (err) {
      if (!abandoned.current) setState({ kind: 'failed', message: microphoneError(err) });
      return;
    }
    if (abandoned.current) {
      stream.getTracks().forEach((t) => t.stop());
      return;
    }
    const mimeType = recordingMimeType();
    let recorder: MediaRecorder;
    try {
      recorder = mimeType ? new MediaRecorder(stream, { mimeType }) : new MediaRecorder(stream);
    } catch (err) {
      stream.getTracks().forEach((t) => t.stop());
      setState({ kind: 'failed', message: `This browser cannot record audio: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    const s: Session = { stream, recorder, chunks: [], cancelled: false };
    session.current = s;
    const startedAt = new Date();
    recorder.ondataavailable = (e) => {
      if (e.data.size > 0) s.chunks.push(e.data);
    };
    recorder.onstop = () => {
      release(s);
      setState({ kind: 'idle' });
      if (s.cancelled) return;
      const type = recorder.mimeType || mimeType || 'audio/webm';
      const blob = new Blob(s.chunks, { type });
      if (blob.size === 0) {
        setState({ kind: 'failed', message: 'The recording is empty: the microphone sent no sound.' });
        return;
      }
      onRecordedRef.current(new File([blob], recordingFileName(startedAt, type), { type }));
    };
    recorder.onerror = () => {
      s.cancelled = true;
      release(s);
      setState({ kind: 'failed', message: 'The recording stopped because of an error in the browser.' });
    };
    // The server's limit: the recording stops there by itself.
    s.timer = setTimeout(() => {
      if (recorder.state !== 'inactive') recorder.stop();
    }, maxSeconds * 1000);
    recorder.start(1000);
    setState({ kind: 'recording', since: Date.now() });
  }, [release, maxSeconds]);

  const stop = useCallback(() => {
    const s = session.current;
    if (s && s.recorder.state !== 'inactive') s.recorder.stop();
  }, []);

  const cancel = useCallback(() => {
    const s = session.current;
    if (!s) {
      abandoned.current = true;
      setState({ kind: 'idle' });
      return;
    }
    s.cancelled = true;
    if (s.recorder.state !== 'inactive') s.recorder.stop();
    else release(s);
  }, [release]);

  // Leaving the page ends a recording and frees the microphone.
  useEffect(
    () => () => {
      abandoned.current = true;
      const s = session.current;
      if (!s) return;
      s.cancelled = true;
      if (s.recorder.state !== 'inactive') s.recorder.stop();
      release(s);
    },
    [release],
  );

  return { state, start, stop, cancel };
}
