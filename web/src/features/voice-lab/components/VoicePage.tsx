import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { Badge } from '@/components/Badge';
import { Button } from '@/components/Button';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { TextArea, TextField } from '@/components/Field';
import { TrashIcon } from '@/components/icons';
import { Page } from '@/components/Page';
import { Spinner } from '@/components/Spinner';
import { toast } from '@/lib/toast';
import { deleteSample, editVoice, editVoiceSettings, getVoice, previewSource, sampleAudioUrl, speak, voiceQueryKey, voicesQueryKey, type Sample } from '../api';
import { ACCEPTED_FILES, checkFiles, errorMessage, formatBytes, formatDuration, PARAMETRIC_NOTE } from '../api/model';

/** /app/voice-lab/:voiceId: a voice's recordings, name, description and settings. */
export function VoicePage({ voiceId, onChanged }: { voiceId: string; onChanged?: () => void }) {
  const qc = useQueryClient();
  const voice = useQuery({ queryKey: voiceQueryKey(voiceId), queryFn: () => getVoice(voiceId) });
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [stability, setStability] = useState(0.5);
  const [similarity, setSimilarity] = useState(0.75);
  const [dropping, setDropping] = useState<Sample | null>(null);
  const [tryText, setTryText] = useState('Hello! This is how my cloned voice sounds.');
  const [heard, setHeard] = useState<string | null>(null);
  useEffect(() => () => void (heard && URL.revokeObjectURL(heard)), [heard]);
  const tryIt = useMutation({
    mutationFn: () => speak(voiceId, tryText),
    onSuccess: (blob) => setHeard(URL.createObjectURL(blob)),
    onError: (err) => toast(errorMessage(err), 'error'),
  });
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (!voice.data) return;
    setName(voice.data.name ?? '');
    setDescription(voice.data.description ?? '');
    setStability(voice.data.settings?.stability ?? 0.5);
    setSimilarity(voice.data.settings?.similarity_boost ?? 0.75);
  }, [voice.data]);
  const changed = () => {
    void qc.invalidateQueries({ queryKey: voiceQueryKey(voiceId) });
    void qc.invalidateQueries({ queryKey: voicesQueryKey });
    onChanged?.();
  };
  const save = useMutation({
    mutationFn: (files?: File[]) => editVoice(voiceId, { name, description, files }),
    onSuccess: (_r, files) => {
      toast(files?.length ? 'Recordings added; the voice was fitted again.' : 'Voice saved.', 'success');
      changed();
    },
    onError: (err) => toast(errorMessage(err), 'error'),
  });
  const saveSettings = useMutation({
    mutationFn: () => editVoiceSettings(voiceId, { stability, similarity_boost: similarity }),
    onSuccess: () => {
      toast('Settings saved.', 'success');
      changed();
    },
    onError: (err) => toast(errorMessage(err), 'error'),
  });
  const dropSample = useMutation({
    mutationFn: (s: Sample) => deleteSample(voiceId, s.sample_id),
    onSuccess: () => {
      setDropping(null);
      toast('Recording deleted; the voice was fitted again.', 'success');
      changed();
    },
    onError: (err) => toast(errorMessage(err), 'error'),
  });

  if (voice.isPending) return <Spinner label="Loading the voice" />;
  if (voice.isError || !voice.data)
    return (
      <Page title="Voice">
        <p role="alert">{errorMessage(voice.error)}</p>
        <Link to="/app/voice-lab" className="underline">
          Back to the voice lab
        </Link>
      </Page>
    );
  const v = voice.data;
  const own = v.category !== 'premade';
  return (
    <Page
      title={v.name}
      description={v.category === 'cloned' ? PARAMETRIC_NOTE : v.description}
      actions={
        <Link to="/app/voice-lab" className="text-sm underline">
          All voices
        </Link>
      }
    >
      <div className="flex flex-wrap items-center gap-3">
        <Badge>{v.category}</Badge>
        {previewSource(v) && <audio controls preload="none" src={previewSource(v)} aria-label="Preview" />}
      </div>
      <section aria-label="Try the voice" className="space-y-3">
        <h2 className="text-lg font-semibold">Try it</h2>
        <TextField label="Text" value={tryText} onChange={(e) => setTryText(e.target.value)} hint="Generating speech uses credits, as in Text to Speech." />
        <div className="flex flex-wrap items-center gap-3">
          <Button onClick={() => tryIt.mutate()} loading={tryIt.isPending} disabled={!tryText.trim()}>
            Speak
          </Button>
          {heard && <audio controls autoPlay src={heard} aria-label="The voice speaking" data-testid="try-audio" />}
        </div>
      </section>
      {own && (
        <section aria-label="Details" className="space-y-3">
          <h2 className="text-lg font-semibold">Details</h2>
          <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} />
          <label className="block text-sm font-medium">
            Description
            <TextArea className="mt-1.5" value={description} onChange={(e) => setDescription(e.target.value)} rows={2} />
          </label>
          <Button onClick={() => save.mutate(undefined)} loading={save.isPending && !save.variables} disabled={!name.trim()}>
            Save
          </Button>
        </section>
      )}
      {v.category === 'cloned' && (
        <section aria-label="Samples" className="space-y-3">
          <div className="flex items-center justify-between">
            <h2 className="text-lg font-semibold">Samples</h2>
            <Button variant="outline" size="sm" onClick={() => input.current?.click()} loading={save.isPending && !!save.variables}>
              Add samples
            </Button>
            <input
              ref={input}
              type="file"
              multiple
              accept={ACCEPTED_FILES}
              className="hidden"
              data-testid="add-samples"
              onChange={(e) => {
                const files = Array.from(e.target.files ?? []);
                e.target.value = '';
                const problem = checkFiles(files);
                if (problem) toast(problem, 'error');
                else save.mutate(files);
              }}
            />
          </div>
          <ul className="divide-y divide-gray-200 rounded-xl border border-gray-200 dark:divide-gray-800 dark:border-gray-800">
            {(v.samples ?? []).map((s) => (
              <li key={s.sample_id} className="flex flex-wrap items-center gap-3 p-3" data-testid="sample-row">
                <div className="min-w-0 flex-1">
                  <div className="truncate font-medium">{s.file_name}</div>
                  <div className="text-xs text-gray-500">
                    {formatDuration(s.duration_secs)} · {formatBytes(s.size_bytes)}
                    {s.remove_background_noise ? ' · noise removed' : ''}
                  </div>
                </div>
                <audio controls preload="none" src={sampleAudioUrl(v.voice_id, s.sample_id)} aria-label={`Play ${s.file_name}`} className="h-8" />
                <Button variant="ghost" size="icon-sm" aria-label={`Delete ${s.file_name}`} onClick={() => setDropping(s)} disabled={(v.samples ?? []).length <= 1}>
                  <TrashIcon size={16} />
                </Button>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-label="Settings" className="space-y-3">
        <h2 className="text-lg font-semibold">Settings</h2>
        <label className="block text-sm">
          Stability: {stability.toFixed(2)}
          <input type="range" min={0} max={1} step={0.05} value={stability} onChange={(e) => setStability(Number(e.target.value))} className="block w-full" />
        </label>
        <label className="block text-sm">
          Similarity: {similarity.toFixed(2)}
          <input type="range" min={0} max={1} step={0.05} value={similarity} onChange={(e) => setSimilarity(Number(e.target.value))} className="block w-full" />
        </label>
        <Button variant="outline" onClick={() => saveSettings.mutate()} loading={saveSettings.isPending}>
          Save settings
        </Button>
      </section>
      <ConfirmDialog
        open={dropping !== null}
        onOpenChange={(o) => !o && setDropping(null)}
        title="Delete this recording?"
        description={`${dropping?.file_name ?? ''} is removed and the voice is fitted again from the others.`}
        confirmLabel="Delete recording"
        loading={dropSample.isPending}
        onConfirm={() => dropping && dropSample.mutate(dropping)}
      />
    </Page>
  );
}
