import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/Button';
import { cn } from '@/components/cn';
import { DialogueLines } from '@/components/DialogueLines';
import { Select, TextArea } from '@/components/Field';
import { ChevronDownIcon, ChevronUpIcon, DownloadIcon, PlusIcon, TrashIcon } from '@/components/icons';
import { httpErrorMessage } from '@/lib/api';
import { countCharacters } from '@/lib/capabilities';
import { DIALOGUE } from '@/lib/dialogue';
import { saveBlob } from '@/lib/download';
import { formatNumber, truncate } from '@/lib/format';
import { usePlayerStore } from '@/lib/player';
import { toast } from '@/lib/toast';
import { generateDialogue, type GeneratedAudio, type OutputFormat, type Voice } from '../api';

/** One line of the dialogue being written (id: a stable React key). */
export interface DialogueDraftLine {
  id: string;
  text: string;
  voiceId: string;
}

let nextLineId = 0;
export const newDialogueLine = (voiceId = '', text = ''): DialogueDraftLine => ({ id: `line-${++nextLineId}`, text, voiceId });

interface DialogueModeProps {
  lines: DialogueDraftLine[];
  onLinesChange: (lines: DialogueDraftLine[]) => void;
  voices: Voice[] | undefined;
  modelId: string | null;
  outputFormat: OutputFormat;
  stability: number;
  allowed: boolean;
  onGenerated?: (historyItemId: string | null) => void;
  onError?: (err: unknown) => boolean;
}

const iconButton =
  'flex size-8 cursor-pointer items-center justify-center rounded-lg text-gray-600 hover:bg-gray-100 hover:text-gray-900 disabled:cursor-not-allowed disabled:opacity-40 dark:text-gray-400 dark:hover:bg-gray-800 dark:hover:text-gray-100';

/**
 * Dialogue mode of the text-to-speech page: lines, each with its own voice, spoken one after the
 * other as one audio (POST /v1/text-to-dialogue).
 */
export function DialogueMode({
  lines,
  onLinesChange,
  voices,
  modelId,
  outputFormat,
  stability,
  allowed,
  onGenerated,
  onError,
}: DialogueModeProps) {
  const player = usePlayerStore();
  const [result, setResult] = useState<{ audio: GeneratedAudio; lines: Array<{ text: string; voice_id: string; voice_name?: string }> } | null>(null);
  const voiceName = (id: string) => voices?.find((v) => v.voice_id === id)?.name;

  const characters = lines.reduce((n, l) => n + countCharacters(l.text), 0);
  const tooLong = characters > DIALOGUE.maxCharacters;
  const complete = lines.every((l) => l.text.trim() !== '' && l.voiceId !== '');

  const update = (i: number, patch: Partial<DialogueDraftLine>) =>
    onLinesChange(lines.map((l, j) => (j === i ? { ...l, ...patch } : l)));
  const move = (i: number, by: number) => {
    const next = [...lines];
    const [l] = next.splice(i, 1);
    next.splice(i + by, 0, l);
    onLinesChange(next);
  };
  const add = () => {
    // A new line goes to the voice that did not speak last (the other side of the conversation).
    const last = lines.at(-1)?.voiceId;
    const other = lines.findLast((l) => l.voiceId !== last)?.voiceId ?? voices?.find((v) => v.voice_id !== last)?.voice_id ?? last ?? '';
    onLinesChange([...lines, newDialogueLine(other)]);
  };

  const generate = useMutation({
    mutationFn: generateDialogue,
    onSuccess: (audio, req) => {
      const spoken = req.inputs.map((l) => ({ ...l, voice_name: voiceName(l.voice_id) }));
      setResult({ audio, lines: spoken });
      const text = req.inputs.map((l) => l.text).join(' ');
      player.load({
        id: audio.historyItemId ?? `dialogue-${Date.now()}`,
        src: URL.createObjectURL(audio.blob),
        revokeSrc: true,
        type: 'text-to-speech',
        title: truncate(`Dialogue: ${text.replace(/\s+/g, ' ').trim()}`, 100),
        voiceName: [...new Set(spoken.map((l) => l.voice_name).filter(Boolean))].join(', ') || undefined,
        historyItemId: audio.historyItemId ?? undefined,
        text,
        outputFormat,
        autoStart: true,
      });
      onGenerated?.(audio.historyItemId);
    },
    onError: (err) => {
      if (!onError?.(err)) toast.error(httpErrorMessage(err));
    },
  });

  const canGenerate = allowed && complete && !tooLong && lines.length > 0 && Boolean(modelId) && !generate.isPending;
  const submit = () => {
    if (!canGenerate || !modelId) return;
    generate.mutate({
      inputs: lines.map((l) => ({ text: l.text, voice_id: l.voiceId })),
      modelId,
      outputFormat,
      stability,
    });
  };

  const download = () => {
    if (!result) return;
    const ext = outputFormat.split('_')[0];
    saveBlob(result.audio.blob, `dialogue-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}.${ext}`);
  };

  return (
    <div className="flex flex-1 flex-col">
      <ol className="space-y-3" aria-label="Dialogue lines">
        {lines.map((l, i) => (
          <li key={l.id} data-testid="dialogue-line" className="rounded-lg border border-gray-200 p-3 dark:border-gray-800">
            <div className="mb-2 flex items-center gap-2">
              <span className="w-6 text-xs text-gray-500">{i + 1}</span>
              <Select
                aria-label={`Voice of line ${i + 1}`}
                value={l.voiceId}
                onChange={(e) => update(i, { voiceId: e.target.value })}
                className="max-w-xs"
              >
                {!voices && <option value="">Loading voices…</option>}
                {voices && !voices.some((v) => v.voice_id === l.voiceId) && <option value={l.voiceId}>{l.voiceId || 'Pick a voice'}</option>}
                {voices?.map((v) => (
                  <option key={v.voice_id} value={v.voice_id}>
                    {v.name}
                  </option>
                ))}
              </Select>
              <div className="ml-auto flex items-center">
                <button type="button" className={iconButton} aria-label={`Move line ${i + 1} up`} disabled={i === 0} onClick={() => move(i, -1)}>
                  <ChevronUpIcon size={15} />
                </button>
                <button
                  type="button"
                  className={iconButton}
                  aria-label={`Move line ${i + 1} down`}
                  disabled={i === lines.length - 1}
                  onClick={() => move(i, 1)}
                >
                  <ChevronDownIcon size={15} />
                </button>
                <button
                  type="button"
                  className={iconButton}
                  aria-label={`Remove line ${i + 1}`}
                  disabled={lines.length === 1}
                  onClick={() => onLinesChange(lines.filter((_, j) => j !== i))}
                >
                  <TrashIcon size={15} />
                </button>
              </div>
            </div>
            <TextArea
              aria-label={`Text of line ${i + 1}`}
              value={l.text}
              rows={2}
              onChange={(e) => update(i, { text: e.target.value })}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                  e.preventDefault();
                  submit();
                }
              }}
              placeholder="What this voice says… tags like [laughs], [whispers] or [pause] are performed, not read"
            />
          </li>
        ))}
      </ol>
      <div className="mt-3">
        <Button variant="secondary" size="sm" onClick={add} disabled={lines.length >= DIALOGUE.maxLines}>
          <PlusIcon size={14} /> Add line
        </Button>
        {lines.length >= DIALOGUE.maxLines && (
          <span className="ml-2 text-xs text-gray-500">A dialogue has at most {DIALOGUE.maxLines} lines.</span>
        )}
      </div>
      <p className="mt-3 text-xs text-gray-500 dark:text-gray-400">
        Each line is spoken by its voice with a short pause between speakers. Tags in brackets are not read out: [pause],
        [short pause] and [long pause] become silence, [whispers] a whispered voice, emotions such as [excited] or [sad] a
        change of pace and pitch, and sounds such as [laughs] or [sighs] come from the sound-effects engine when the server
        has one (otherwise a short silence). The built-in engines are classical synthesizers, not neural voices.
      </p>
      <div className="mt-4 flex flex-wrap items-center justify-between gap-3 border-t border-gray-200 pt-4 dark:border-gray-800">
        <div className="text-sm text-gray-600 dark:text-gray-400" aria-live="polite">
          <span data-testid="dialogue-character-count" className={cn(tooLong && 'font-medium text-red-600 dark:text-red-400')}>
            {formatNumber(characters)} / {formatNumber(DIALOGUE.maxCharacters)} characters
          </span>
          <span className="mx-2" aria-hidden="true">
            ·
          </span>
          <span>
            {lines.length} / {DIALOGUE.maxLines} lines
          </span>
        </div>
        <div className="flex items-center gap-2">
          {result && (
            <Button variant="secondary" onClick={download}>
              <DownloadIcon size={15} /> Download
            </Button>
          )}
          <Button size="lg" onClick={submit} disabled={!canGenerate} loading={generate.isPending}>
            Generate dialogue
          </Button>
        </div>
      </div>
      {tooLong && (
        <p role="alert" className="mt-2 text-sm text-red-600 dark:text-red-400">
          A dialogue takes at most {formatNumber(DIALOGUE.maxCharacters)} characters in all; these lines have{' '}
          {formatNumber(characters)}.
        </p>
      )}
      {result && (
        <section aria-label="Last dialogue" className="mt-4 rounded-lg bg-gray-50 p-3 dark:bg-gray-900/60">
          <h2 className="mb-1 text-xs font-medium text-gray-500">Last generated</h2>
          <DialogueLines lines={result.lines} voiceName={voiceName} />
        </section>
      )}
    </div>
  );
}
