import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Button } from '@/components/Button';
import { FieldError, Select, TextArea, TextField } from '@/components/Field';
import { Page } from '@/components/Page';
import { httpErrorMessage } from '@/lib/api';
import { designVoice, listVoices, remixVoice, saveVoice, voicesQueryKey, type SavedVoice, type VoicePreviews } from '../api';
import {
  descriptionProblem,
  EXAMPLES,
  MAX_DESCRIPTION,
  PARAMETRIC_NOTE,
  previewAudioUrl,
  previewLabel,
  textProblem,
} from '../api/model';

/**
 * /app/voice-lab/design: describe a voice in words (or pick a voice to remix and describe the
 * change), hear three previews, pick one, name it and save it to the workspace's voices.
 * ?remix=<voice_id> opens the page on remixing that voice. onSaved runs after a voice is saved
 * and onGenerated after charged previews (the app layer refreshes what lists voices and credits).
 */
export function VoiceDesignPage({
  onGenerated,
  onSaved,
}: { onGenerated?: () => void; onSaved?: (voice: SavedVoice) => void } = {}) {
  const [params, setParams] = useSearchParams();
  const remixId = params.get('remix') ?? '';
  const [description, setDescription] = useState('');
  const [text, setText] = useState('');
  const [touched, setTouched] = useState(false);
  const [previews, setPreviews] = useState<VoicePreviews | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [saved, setSaved] = useState<SavedVoice | null>(null);
  const descId = useId();
  const textId = useId();

  const voices = useQuery({ queryKey: voicesQueryKey, queryFn: listVoices });
  const remixable = (voices.data?.voices ?? []).filter((v) => (v.labels?.language ?? 'en') === 'en');
  const remixName = remixable.find((v) => v.voice_id === remixId)?.name;

  const descProblem = descriptionProblem(description, remixId !== '');
  const txtProblem = textProblem(text);
  const count = [...description].length;

  const generate = useMutation({
    mutationFn: () => {
      const body = {
        voice_description: description.trim(),
        ...(text.trim() ? { text: text.trim() } : { auto_generate_text: true }),
      };
      return remixId ? remixVoice(remixId, body) : designVoice(body);
    },
    onSuccess: (out) => {
      setPreviews(out);
      setChosen(out.previews[0]?.generated_voice_id ?? null);
      setSaved(null);
      onGenerated?.();
    },
  });

  const save = useMutation({
    mutationFn: () => {
      const played = (previews?.previews ?? []).map((p) => p.generated_voice_id).filter((id) => id !== chosen);
      return saveVoice({
        voice_name: name.trim(),
        // A remix's change ("deeper") may be shorter than a saved voice's description must be.
        voice_description: (remixId ? `Remix of ${remixName ?? 'a voice'}: ${description.trim()}` : description.trim()).slice(0, MAX_DESCRIPTION),
        generated_voice_id: chosen ?? '',
        played_not_selected_voice_ids: played,
      });
    },
    onSuccess: (v) => {
      setSaved(v);
      onSaved?.(v);
    },
  });

  function submit() {
    setTouched(true);
    if (descProblem || txtProblem) return;
    generate.mutate();
  }

  function setRemix(id: string) {
    const next = new URLSearchParams(params);
    if (id) next.set('remix', id);
    else next.delete('remix');
    setParams(next, { replace: true });
    setPreviews(null);
    setSaved(null);
  }

  return (
    <Page
      title={remixId ? 'Remix a voice' : 'Design a voice'}
      description={
        <>
          <p>
            Describe a voice — gender, age, accent, pitch, pace, texture and mood — and hear three previews of it. Pick one,
            name it and save it to your voices.
          </p>
          <p className="mt-2 font-medium text-gray-800 dark:text-gray-200" data-testid="parametric-note">
            {PARAMETRIC_NOTE}. No neural voice model runs on this server: the description picks a built-in voice with the
            accent and sets its pitch, speaking rate, pitch range and vocal-tract size.
          </p>
        </>
      }
    >
      <section className="space-y-4">
        <div>
          <label htmlFor="remix-voice" className="mb-1.5 block text-sm font-medium text-gray-800 dark:text-gray-200">
            Start from
          </label>
          <Select
            id="remix-voice"
            value={remixId}
            onChange={(e) => setRemix(e.target.value)}
          >
            <option value="">A new voice from the description</option>
            {remixId && !remixName && <option value={remixId}>The voice {remixId}</option>}
            {remixable.map((v) => (
              <option key={v.voice_id} value={v.voice_id}>
                Remix {v.name}
              </option>
            ))}
          </Select>
        </div>

        <div>
          <div className="mb-1.5 flex items-center justify-between">
            <label htmlFor={descId} className="text-sm font-medium text-gray-800 dark:text-gray-200">
              {remixId ? 'How should the voice change?' : 'Voice description'}
            </label>
            <span
              className={count > MAX_DESCRIPTION ? 'text-xs text-red-600' : 'text-xs text-gray-500'}
              data-testid="description-count"
              aria-live="polite"
            >
              {count} / {MAX_DESCRIPTION}
            </span>
          </div>
          <TextArea
            id={descId}
            rows={4}
            value={description}
            placeholder={remixId ? 'Deeper and slower, a little raspy' : 'A deep, calm elderly man with a warm voice and a Scottish accent'}
            aria-invalid={touched && descProblem !== null}
            aria-describedby={`${descId}-error`}
            onChange={(e) => setDescription(e.target.value)}
          />
          <FieldError id={`${descId}-error`}>{touched ? descProblem : null}</FieldError>
        </div>

        {!remixId && (
          <div>
            <p className="mb-1.5 text-sm font-medium text-gray-800 dark:text-gray-200">Examples</p>
            <div className="flex flex-wrap gap-2">
              {EXAMPLES.map((ex) => (
                <Button key={ex} size="sm" variant="outline" onClick={() => setDescription(ex)}>
                  {ex}
                </Button>
              ))}
            </div>
          </div>
        )}

        <div>
          <label htmlFor={textId} className="mb-1.5 block text-sm font-medium text-gray-800 dark:text-gray-200">
            Text the previews read <span className="font-normal text-gray-500">(optional, 100–1000 characters)</span>
          </label>
          <TextArea
            id={textId}
            rows={3}
            value={text}
            placeholder="Leave empty and the previews introduce themselves."
            aria-invalid={touched && txtProblem !== null}
            aria-describedby={`${textId}-error`}
            onChange={(e) => setText(e.target.value)}
          />
          <FieldError id={`${textId}-error`}>{touched ? txtProblem : null}</FieldError>
        </div>

        <div className="flex items-center gap-3">
          <Button onClick={submit} loading={generate.isPending}>
            {remixId ? 'Remix' : 'Generate previews'}
          </Button>
          {generate.isError && (
            <p role="alert" className="text-sm text-red-600 dark:text-red-400">
              {httpErrorMessage(generate.error)}
            </p>
          )}
        </div>
      </section>

      {previews && (
        <section aria-labelledby="previews-heading" className="space-y-4">
          <h2 id="previews-heading" className="text-lg font-semibold">
            Previews
          </h2>
          <p className="text-sm text-gray-600 dark:text-gray-400">“{previews.text}”</p>
          <fieldset className="space-y-3">
            <legend className="sr-only">Pick a preview</legend>
            {previews.previews.map((p, i) => (
              <div
                key={p.generated_voice_id}
                data-testid="voice-preview"
                className="flex flex-col gap-3 rounded-xl border border-gray-200 p-4 sm:flex-row sm:items-center dark:border-gray-800"
              >
                <label className="flex min-w-44 cursor-pointer items-center gap-2 text-sm font-medium">
                  <input
                    type="radio"
                    name="preview"
                    value={p.generated_voice_id}
                    checked={chosen === p.generated_voice_id}
                    onChange={() => setChosen(p.generated_voice_id)}
                  />
                  {previewLabel(i, p.duration_secs)}
                </label>
                <audio
                  controls
                  preload="none"
                  className="w-full"
                  aria-label={`Play preview ${i + 1}`}
                  src={previewAudioUrl(p, p.generated_voice_id)}
                />
              </div>
            ))}
          </fieldset>

          <form
            className="flex flex-col gap-3 sm:flex-row sm:items-end"
            onSubmit={(e) => {
              e.preventDefault();
              if (name.trim() && chosen) save.mutate();
            }}
          >
            <TextField
              label="Voice name"
              className="flex-1"
              value={name}
              maxLength={100}
              onChange={(e) => setName(e.target.value)}
              placeholder="Narrator"
            />
            <Button type="submit" loading={save.isPending} disabled={!name.trim() || !chosen}>
              Save voice
            </Button>
          </form>
          {save.isError && (
            <p role="alert" className="text-sm text-red-600 dark:text-red-400">
              {httpErrorMessage(save.error)}
            </p>
          )}
          {saved && (
            <div role="status" className="rounded-xl bg-green-50 p-4 text-sm text-green-900 dark:bg-green-950 dark:text-green-100">
              Saved “{saved.name}” to your voices.{' '}
              <Link className="underline" to="/app/speech-synthesis/text-to-speech">
                Speak with it in Text to Speech
              </Link>{' '}
              ·{' '}
              <button type="button" className="cursor-pointer underline" onClick={() => setRemix(saved.voice_id)}>
                Remix it
              </button>
            </div>
          )}
        </section>
      )}
    </Page>
  );
}
