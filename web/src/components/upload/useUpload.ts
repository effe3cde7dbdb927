import { useCallback, useEffect, useRef, useState } from 'react';
import type { ProgressHooks } from '@/lib/upload';

/** Where an upload that the server then works on stands. */
export type UploadPhase =
  | { kind: 'idle' }
  | { kind: 'uploading'; name: string; sent: number; total: number }
  | { kind: 'processing'; name: string; since: number }
  | { kind: 'failed'; name: string; message: string };

/**
 * The state of one upload at a time: run(name, size, send) calls send with progress hooks and
 * an abort signal, follows the upload and then the server's work, and resolves with send's
 * result (undefined when it failed, the failure shown, or was cancelled). The upload is
 * cancelled when the component unmounts.
 */
export function useUpload(errorText: (e: unknown) => string) {
  const [phase, setPhase] = useState<UploadPhase>({ kind: 'idle' });
  const abort = useRef<AbortController | null>(null);
  const busy = phase.kind === 'uploading' || phase.kind === 'processing';
  const errorRef = useRef(errorText);
  errorRef.current = errorText;
  useEffect(() => () => abort.current?.abort(), []);

  const run = useCallback(async <T,>(name: string, size: number, send: (hooks: Required<ProgressHooks>) => Promise<T>): Promise<T | undefined> => {
    const ctl = new AbortController();
    abort.current = ctl;
    setPhase({ kind: 'uploading', name, sent: 0, total: size });
    try {
      const out = await send({
        signal: ctl.signal,
        onUploadProgress: (sent, total) => setPhase((p) => (p.kind === 'uploading' ? { kind: 'uploading', name, sent, total } : p)),
        onUploaded: () => setPhase({ kind: 'processing', name, since: Date.now() }),
      });
      setPhase({ kind: 'idle' });
      return out;
    } catch (e) {
      setPhase(ctl.signal.aborted ? { kind: 'idle' } : { kind: 'failed', name, message: errorRef.current(e) });
      return undefined;
    } finally {
      if (abort.current === ctl) abort.current = null;
    }
  }, []);
  const cancel = useCallback(() => abort.current?.abort(), []);
  const fail = useCallback((name: string, message: string) => setPhase({ kind: 'failed', name, message }), []);
  return { phase, busy, run, cancel, fail };
}
