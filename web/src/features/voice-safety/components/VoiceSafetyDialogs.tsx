import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { httpErrorMessage } from '@/lib/api';
import { useRecorder } from '@/lib/useRecorder';
import {
  controlOf,
  getCaptcha,
  getVoices,
  MAX_CAPTCHA_SECONDS,
  newlyFlagged,
  postCaptcha,
  safetyVoicesQueryKey,
  type SafetyControl,
  type Voice,
} from '../api';

/** How often the voices are looked at again for new safety controls. */
const POLL_MS = 60_000;

type Open = { voice: Voice; control: SafetyControl };

/**
 * Watches the workspace's voices and, when one is newly put under a safety control (spec §4),
 * opens the voice-blocked dialog (BAN) or the voice captcha dialog (CAPTCHA). Nothing opens for
 * controls already set when the page loaded. Composed once, by the app shell.
 */
export function VoiceSafetyDialogs({ pollMs = POLL_MS }: { pollMs?: number }) {
  const voices = useQuery({ queryKey: safetyVoicesQueryKey, queryFn: getVoices, refetchInterval: pollMs });
  const seen = useRef<Map<string, SafetyControl | null> | null>(null);
  const [queue, setQueue] = useState<Open[]>([]);

  useEffect(() => {
    const list = voices.data?.voices;
    if (!list) return;
    const flagged = newlyFlagged(seen.current, list);
    seen.current = new Map(list.map((v) => [v.voice_id, controlOf(v)]));
    if (flagged.length) setQueue((q) => [...q, ...flagged]);
  }, [voices.data]);

  const current = queue[0];
  const close = () => setQueue((q) => q.slice(1));
  if (!current) return null;
  return current.control === 'BAN' ? (
    <VoiceBlockedDialog voice={current.voice} onClose={close} />
  ) : (
    <VoiceCaptchaDialog voice={current.voice} onClose={close} />
  );
}

/** The voice-blocked dialog (dialog state voiceBlocked). */
export function VoiceBlockedDialog({ voice, onClose }: { voice: Voice; onClose: () => void }) {
  return (
    <Dialog
      open
      onOpenChange={(o) => !o && onClose()}
      title="Voice blocked"
      description={`${voice.name} has been blocked for violating the terms of use and can no longer be used.`}
      footer={<Button onClick={onClose}>Got it</Button>}
    >
      <p className="text-sm text-gray-600 dark:text-gray-400" data-testid="voice-blocked">
        Pick another voice for new generations. Your history with this voice stays available.
      </p>
    </Dialog>
  );
}

/**
 * The voice captcha dialog (dialog state voiceCaptcha): fetches a sentence (text and, spoken
 * with the voice, audio), lets the user record it or choose a file, and posts the reading.
 */
export function VoiceCaptchaDialog({ voice, onClose }: { voice: Voice; onClose: () => void }) {
  const queryClient = useQueryClient();
  const captcha = useQuery({
    queryKey: ['workspace', 'voice-captcha', voice.voice_id],
    queryFn: () => getCaptcha(voice.voice_id),
    staleTime: Infinity,
    gcTime: 0,
    retry: false,
  });
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [passed, setPassed] = useState(false);
  const recorder = useRecorder((f) => setFile(f), MAX_CAPTCHA_SECONDS);
  const recording = recorder.state.kind === 'recording' || recorder.state.kind === 'starting';

  async function submit() {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      await postCaptcha(voice.voice_id, file, file.name);
      setPassed(true);
      void queryClient.invalidateQueries({ queryKey: safetyVoicesQueryKey });
    } catch (err) {
      setError(httpErrorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  const data = captcha.data;
  return (
    <Dialog
      open
      onOpenChange={(o) => !o && onClose()}
      title="Voice captcha"
      description={`Before ${voice.name} can be used again, read the sentence below aloud.`}
      footer={
        passed ? (
          <Button onClick={onClose}>Continue</Button>
        ) : (
          <>
            <Button variant="ghost" onClick={onClose}>
              Later
            </Button>
            <Button onClick={() => void submit()} disabled={!file || busy || recording} data-testid="captcha-submit">
              {busy ? 'Checking…' : 'Send recording'}
            </Button>
          </>
        )
      }
    >
      {captcha.isPending && <p className="text-sm">Fetching the sentence…</p>}
      {captcha.isError && (
        <p role="alert" className="text-sm text-red-600">
          {httpErrorMessage(captcha.error)}
        </p>
      )}
      {data && !passed && (
        <div className="space-y-3">
          <blockquote className="rounded-lg bg-gray-50 p-3 text-base font-medium dark:bg-gray-800" data-testid="captcha-text">
            {data.text}
          </blockquote>
          {data.audio_base64 && (
            <audio controls src={`data:${data.audio_mime_type};base64,${data.audio_base64}`} data-testid="captcha-audio" className="w-full" />
          )}
          <div className="flex flex-wrap items-center gap-2">
            {!recording ? (
              <Button variant="outline" size="sm" onClick={() => void recorder.start()} disabled={busy}>
                Record
              </Button>
            ) : (
              <Button size="sm" onClick={recorder.stop} disabled={recorder.state.kind !== 'recording'}>
                Stop
              </Button>
            )}
            <label className="text-sm">
              <span className="sr-only">Recording file</span>
              <input
                type="file"
                accept="audio/*"
                data-testid="captcha-file"
                onChange={(e) => setFile(e.target.files?.[0] ?? null)}
                disabled={busy || recording}
              />
            </label>
          </div>
          {file && <p className="text-xs text-gray-500">Ready: {file.name}</p>}
          {recorder.state.kind === 'failed' && (
            <p role="alert" className="text-sm text-red-600">
              {recorder.state.message}
            </p>
          )}
          {error && (
            <p role="alert" className="text-sm text-red-600" data-testid="captcha-error">
              {error}
            </p>
          )}
          <p className="text-xs text-gray-500">
            Speech to text checks the reading: at most {Math.round(data.max_word_error_rate)} % of the words may differ;{' '}
            {data.attempts_remaining} attempts per sentence.
          </p>
        </div>
      )}
      {passed && (
        <p className="text-sm" data-testid="captcha-passed">
          Thank you: {voice.name} can be used again.
        </p>
      )}
    </Dialog>
  );
}
