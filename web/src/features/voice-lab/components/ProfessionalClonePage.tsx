import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Button } from '@/components/Button';
import { TextField } from '@/components/Field';
import { MicIcon } from '@/components/icons';
import { Page } from '@/components/Page';
import { canRecord } from '@/lib/recording';
import { useRecorder } from '@/lib/useRecorder';
import { getVoice } from '../api';
import { errorMessage, MAX_RECORDING_SECONDS, PARAMETRIC_NOTE } from '../api/model';
import { addPvcSamples, captcha, createPvc, editPvcSample, separateSpeakers, speakers, train, verifyCaptcha, waveform, type PvcSample } from '../api/pvc';

const MODEL = 'eleven_multilingual_v2';

/** Peaks (0–1) drawn as bars; the trimmed-away part is greyed. */
function Waveform({ peaks, start, end }: { peaks: number[]; start: number; end: number }) {
  const n = peaks.length || 1;
  return (
    <svg viewBox={`0 0 ${n} 100`} preserveAspectRatio="none" className="h-16 w-full" role="img" aria-label="Waveform">
      {peaks.map((p, i) => (
        <rect key={i} x={i} y={50 - p * 50} width={0.8} height={Math.max(1, p * 100)} className={i / n < start || i / n > end ? 'fill-gray-300' : 'fill-gray-900 dark:fill-white'} />
      ))}
    </svg>
  );
}

/** One sample: its waveform with trim fields, and speaker separation with speaker picking. */
function SampleCard({ voiceId, sample }: { voiceId: string; sample: PvcSample }) {
  const durMs = Math.round((sample.duration_secs ?? 0) * 1000);
  const [trimStart, setTrimStart] = useState(0);
  const [trimEnd, setTrimEnd] = useState(durMs);
  const [polling, setPolling] = useState(false);
  const [picked, setPicked] = useState<string[] | null>(null);
  const wave = useQuery({ queryKey: ['workspace', 'pvc', 'waveform', sample.sample_id], queryFn: () => waveform(voiceId, sample.sample_id) });
  const sep = useQuery({
    queryKey: ['workspace', 'pvc', 'speakers', sample.sample_id],
    queryFn: () => speakers(voiceId, sample.sample_id),
    refetchInterval: polling ? 500 : false,
  });
  useEffect(() => {
    if (sep.data && (sep.data.status === 'completed' || sep.data.status === 'failed')) setPolling(false);
    if (sep.data?.status === 'completed' && picked === null) setPicked(sep.data.selected_speaker_ids ?? []);
  }, [sep.data, picked]);
  const saveTrim = useMutation({ mutationFn: () => editPvcSample(voiceId, sample.sample_id, { trim_start_time: trimStart, trim_end_time: trimEnd >= durMs ? 0 : trimEnd }) });
  const separate = useMutation({ mutationFn: () => separateSpeakers(voiceId, sample.sample_id), onSuccess: () => { setPicked(null); setPolling(true); } });
  const savePick = useMutation({ mutationFn: (ids: string[]) => editPvcSample(voiceId, sample.sample_id, { selected_speaker_ids: ids }) });
  const status = polling && sep.data?.status !== 'completed' ? 'pending' : sep.data?.status;
  return (
    <li className="space-y-2 rounded-xl border border-gray-200 p-3 dark:border-gray-800" data-testid="pvc-sample">
      <p className="font-medium">{sample.file_name}</p>
      {wave.data && <Waveform peaks={wave.data.visual_waveform} start={trimStart / Math.max(1, durMs)} end={trimEnd / Math.max(1, durMs)} />}
      <div className="flex flex-wrap items-end gap-2">
        <TextField label="Trim start (ms)" type="number" value={trimStart} onChange={(e) => setTrimStart(Number(e.target.value))} />
        <TextField label="Trim end (ms)" type="number" value={trimEnd} onChange={(e) => setTrimEnd(Number(e.target.value))} />
        <Button variant="outline" size="sm" onClick={() => saveTrim.mutate()} loading={saveTrim.isPending}>
          Save trim
        </Button>
      </div>
      {saveTrim.isError && <p role="alert" className="text-sm text-red-600">{errorMessage(saveTrim.error)}</p>}
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <Button variant="outline" size="sm" onClick={() => separate.mutate()} loading={separate.isPending || status === 'pending'}>
          Separate speakers
        </Button>
        <span data-testid="separation-status">Speakers: {status ?? 'not_started'}</span>
      </div>
      {status === 'completed' && sep.data?.speakers && (
        <fieldset className="space-y-1 text-sm">
          <legend className="font-medium">Speakers to train on</legend>
          {Object.values(sep.data.speakers).map((s) => (
            <label key={s.speaker_id} className="flex items-center gap-2">
              <input
                type="checkbox"
                checked={picked?.includes(s.speaker_id) ?? false}
                onChange={(e) => {
                  const next = e.target.checked ? [...(picked ?? []), s.speaker_id] : (picked ?? []).filter((x) => x !== s.speaker_id);
                  setPicked(next);
                  savePick.mutate(next);
                }}
              />
              {s.speaker_id} ({s.duration_secs.toFixed(1)} s)
            </label>
          ))}
        </fieldset>
      )}
    </li>
  );
}

/**
 * /app/voice-lab/professional: the professional clone wizard — create, upload samples (waveforms,
 * trimming), separate speakers and pick, read the captcha aloud, train with progress.
 */
export function ProfessionalClonePage() {
  const [name, setName] = useState('');
  const [language, setLanguage] = useState('en');
  const [voiceId, setVoiceId] = useState<string | null>(null);
  const [samples, setSamples] = useState<PvcSample[]>([]);
  const [captchaText, setCaptchaText] = useState<string | null>(null);
  const [verified, setVerified] = useState(false);
  const [training, setTraining] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const create = useMutation({ mutationFn: () => createPvc(name, language), onSuccess: (r) => setVoiceId(r.voice_id) });
  const upload = useMutation({ mutationFn: (files: File[]) => addPvcSamples(voiceId!, files), onSuccess: (s) => setSamples((cur) => [...cur, ...s]) });
  const getCaptcha = useMutation({ mutationFn: () => captcha(voiceId!), onSuccess: setCaptchaText });
  const verify = useMutation({ mutationFn: (f: File) => verifyCaptcha(voiceId!, f), onSuccess: () => setVerified(true) });
  const recorder = useRecorder((f) => verify.mutate(f), MAX_RECORDING_SECONDS);
  const start = useMutation({ mutationFn: () => train(voiceId!, MODEL), onSuccess: () => setTraining(true) });
  const voice = useQuery({
    queryKey: ['workspace', 'pvc', 'voice', voiceId],
    queryFn: () => getVoice(voiceId!),
    enabled: training && voiceId !== null,
    refetchInterval: (q) => (['fine_tuned', 'failed'].includes(q.state.data?.fine_tuning?.state?.[MODEL] ?? '') ? false : 1000),
  });
  const state = voice.data?.fine_tuning?.state?.[MODEL];
  const progress = voice.data?.fine_tuning?.progress?.[MODEL] ?? 0;

  return (
    <Page title="Professional voice clone" description={`${PARAMETRIC_NOTE} Training here fits the voice by measurement; it is not a neural fine-tune.`}>
      <ol className="space-y-6">
        <li aria-label="Create">
          <h2 className="mb-2 text-lg font-semibold">1. Name the voice</h2>
          {voiceId ? (
            <p className="text-sm">Created {name}.</p>
          ) : (
            <div className="flex flex-wrap items-end gap-2">
              <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} />
              <TextField label="Language" value={language} onChange={(e) => setLanguage(e.target.value)} />
              <Button onClick={() => create.mutate()} loading={create.isPending} disabled={!name.trim()}>
                Create
              </Button>
            </div>
          )}
          {create.isError && <p role="alert" className="text-sm text-red-600">{errorMessage(create.error)}</p>}
        </li>
        {voiceId && (
          <li aria-label="Samples">
            <h2 className="mb-2 text-lg font-semibold">2. Upload recordings</h2>
            <Button variant="outline" onClick={() => input.current?.click()} loading={upload.isPending}>
              Upload files
            </Button>
            <input
              ref={input}
              type="file"
              multiple
              accept="audio/*"
              className="hidden"
              data-testid="pvc-files"
              onChange={(e) => {
                const files = Array.from(e.target.files ?? []);
                if (files.length) upload.mutate(files);
                e.target.value = '';
              }}
            />
            {upload.isError && <p role="alert" className="text-sm text-red-600">{errorMessage(upload.error)}</p>}
            <ul className="mt-3 space-y-3">
              {samples.map((s) => (
                <SampleCard key={s.sample_id} voiceId={voiceId} sample={s} />
              ))}
            </ul>
          </li>
        )}
        {voiceId && samples.length > 0 && (
          <li aria-label="Verify">
            <h2 className="mb-2 text-lg font-semibold">3. Verify it is your voice</h2>
            {verified ? (
              <p className="text-sm text-green-700" role="status">Verified.</p>
            ) : (
              <>
                <Button variant="outline" onClick={() => getCaptcha.mutate()} loading={getCaptcha.isPending}>
                  Show the sentence to read
                </Button>
                {captchaText && (
                  <div className="mt-2 space-y-2">
                    <blockquote className="rounded-lg bg-gray-50 p-3 text-lg dark:bg-gray-800" data-testid="captcha-text">{captchaText}</blockquote>
                    {canRecord() &&
                      (recorder.state.kind === 'recording' ? (
                        <Button variant="danger" onClick={recorder.stop}>Stop recording</Button>
                      ) : (
                        <Button onClick={() => void recorder.start()} loading={recorder.state.kind === 'starting' || verify.isPending}>
                          <MicIcon size={14} /> Record
                        </Button>
                      ))}
                  </div>
                )}
                {verify.isError && <p role="alert" className="text-sm text-red-600">{errorMessage(verify.error)}</p>}
              </>
            )}
          </li>
        )}
        {verified && (
          <li aria-label="Train">
            <h2 className="mb-2 text-lg font-semibold">4. Train</h2>
            <Button onClick={() => start.mutate()} loading={start.isPending} disabled={training && state !== 'failed'}>
              Train the voice
            </Button>
            {start.isError && <p role="alert" className="text-sm text-red-600">{errorMessage(start.error)}</p>}
            {training && (
              <div className="mt-2 space-y-1 text-sm">
                <progress max={1} value={progress} aria-label="Training progress" className="w-full" />
                <p data-testid="training-state">{state ?? 'queued'}{state === 'failed' ? `: ${voice.data?.fine_tuning?.message?.[MODEL] ?? ''}` : ''}</p>
              </div>
            )}
          </li>
        )}
      </ol>
    </Page>
  );
}
