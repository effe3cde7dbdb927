import { useMutation } from '@tanstack/react-query';
import { useId, useRef, useState, type DragEvent } from 'react';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { FieldError, TextArea, TextField } from '@/components/Field';
import { MicIcon, TrashIcon } from '@/components/icons';
import { Spinner } from '@/components/Spinner';
import { canRecord } from '@/lib/recording';
import { useRecorder } from '@/lib/useRecorder';
import { addVoice } from '../api';
import { ACCEPTED_FILES, errorMessage, formatBytes, MAX_RECORDING_SECONDS, PARAMETRIC_NOTE, validateClone } from '../api/model';

/**
 * The instant clone dialog: recordings (uploaded, dropped or recorded in the browser), a name,
 * a description, background-noise removal and the consent the clone needs. On success it hands
 * the new voice's id to onCreated.
 */
export function CloneDialog({ open, onOpenChange, onCreated }: { open: boolean; onOpenChange: (o: boolean) => void; onCreated: (id: string) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [removeNoise, setRemoveNoise] = useState(false);
  const [consent, setConsent] = useState(false);
  const [tried, setTried] = useState(false);
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const consentId = useId();
  const recorder = useRecorder((f) => setFiles((cur) => [...cur, f]), MAX_RECORDING_SECONDS);
  const errors = validateClone({ name, description, files, removeBackgroundNoise: removeNoise, consent });
  const create = useMutation({
    mutationFn: () => addVoice({ name, description: description || undefined, files, removeBackgroundNoise: removeNoise }),
    onSuccess: (r) => {
      reset();
      onCreated(r.voice_id);
    },
  });

  function reset() {
    setName('');
    setDescription('');
    setFiles([]);
    setRemoveNoise(false);
    setConsent(false);
    setTried(false);
    create.reset();
  }

  function submit() {
    setTried(true);
    if (Object.keys(errors).length > 0) return;
    create.mutate();
  }

  function onDrop(e: DragEvent) {
    e.preventDefault();
    setDragging(false);
    setFiles((cur) => [...cur, ...Array.from(e.dataTransfer.files)]);
  }

  const show = (k: keyof typeof errors) => (tried ? errors[k] : undefined);
  return (
    <Dialog
      open={open}
      onOpenChange={(o) => {
        if (!create.isPending) onOpenChange(o);
      }}
      title="Instant voice clone"
      description={PARAMETRIC_NOTE}
      className="max-w-lg"
      footer={
        <>
          <Button variant="outline" onClick={() => onOpenChange(false)} disabled={create.isPending}>
            Cancel
          </Button>
          <Button onClick={submit} loading={create.isPending} data-testid="clone-submit">
            Add voice
          </Button>
        </>
      }
    >
      <div className="space-y-4">
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={show('name')} placeholder="My voice" />
        <div
          className={`rounded-xl border-2 border-dashed p-4 text-center text-sm ${dragging ? 'border-gray-900 dark:border-white' : 'border-gray-300 dark:border-gray-700'}`}
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <p className="text-gray-600 dark:text-gray-400">Drop recordings here: a minute or more of clear speech, one speaker.</p>
          <div className="mt-3 flex flex-wrap justify-center gap-2">
            <Button variant="outline" size="sm" onClick={() => input.current?.click()}>
              Upload files
            </Button>
            {canRecord() &&
              (recorder.state.kind === 'recording' ? (
                <Button variant="danger" size="sm" onClick={recorder.stop}>
                  Stop recording
                </Button>
              ) : (
                <Button variant="outline" size="sm" onClick={() => void recorder.start()} loading={recorder.state.kind === 'starting'}>
                  <MicIcon size={14} /> Record
                </Button>
              ))}
          </div>
          <input
            ref={input}
            type="file"
            multiple
            accept={ACCEPTED_FILES}
            className="hidden"
            data-testid="clone-files"
            onChange={(e) => {
              const picked = Array.from(e.target.files ?? []);
              setFiles((cur) => [...cur, ...picked]);
              e.target.value = '';
            }}
          />
          {recorder.state.kind === 'failed' && <p className="mt-2 text-red-600">{recorder.state.message}</p>}
        </div>
        {files.length > 0 && (
          <ul className="space-y-1 text-sm" aria-label="Recordings">
            {files.map((f, i) => (
              <li key={`${f.name}-${i}`} className="flex items-center justify-between gap-2 rounded-lg bg-gray-50 px-3 py-1.5 dark:bg-gray-800">
                <span className="truncate">{f.name}</span>
                <span className="flex shrink-0 items-center gap-2 text-gray-500">
                  {formatBytes(f.size)}
                  <Button variant="ghost" size="icon-sm" aria-label={`Remove ${f.name}`} onClick={() => setFiles((cur) => cur.filter((_, j) => j !== i))}>
                    <TrashIcon size={14} />
                  </Button>
                </span>
              </li>
            ))}
          </ul>
        )}
        <FieldError>{show('files')}</FieldError>
        <div>
          <label className="mb-1.5 block text-sm font-medium">Description</label>
          <TextArea value={description} onChange={(e) => setDescription(e.target.value)} rows={2} placeholder="How the voice sounds, what it is for" aria-label="Description" />
          <FieldError>{show('description')}</FieldError>
        </div>
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" checked={removeNoise} onChange={(e) => setRemoveNoise(e.target.checked)} className="mt-0.5" />
          <span>Remove background noise (with the voice isolator; it can make clean recordings worse)</span>
        </label>
        <div>
          <label htmlFor={consentId} className="flex items-start gap-2 text-sm">
            <input id={consentId} type="checkbox" checked={consent} onChange={(e) => setConsent(e.target.checked)} className="mt-0.5" data-testid="clone-consent" />
            <span>I confirm that I have the rights and consents needed to clone this voice, and I will not use the clone for anything deceptive or harmful.</span>
          </label>
          <FieldError>{show('consent')}</FieldError>
        </div>
        {create.isPending && (
          <p className="flex items-center gap-2 text-sm text-gray-600 dark:text-gray-400" role="status">
            <Spinner /> Uploading and analysing the recordings: pitch, pace and timbre…
          </p>
        )}
        {create.isError && (
          <p className="rounded-lg bg-red-50 p-3 text-sm text-red-700 dark:bg-red-950 dark:text-red-300" role="alert">
            {errorMessage(create.error)}
          </p>
        )}
      </div>
    </Dialog>
  );
}
