import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { memo, useEffect, useMemo, useState, type FormEvent, type MouseEvent } from 'react';
import { Button } from '@/components/Button';
import { cn } from '@/components/cn';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { inputClass, TextArea } from '@/components/Field';
import { DownloadIcon, TrashIcon } from '@/components/icons';
import { httpErrorMessage } from '@/lib/api';
import { saveBlob } from '@/lib/download';
import { formatDate, formatTime } from '@/lib/format';
import { toast } from '@/lib/toast';
import {
  deleteTranscript,
  editTranscript,
  exportTranscript,
  getTranscript,
  transcriptAudioUrl,
  transcriptQueryKey,
  transcriptsQueryKey,
  type DetectedEntity,
  type ExportFormat,
  type TranscriptView,
} from '../api';
import {
  activeWord,
  entityOfWords,
  entityTypeLabel,
  isRedactionMarker,
  paragraphs,
  speakerLabel,
  timedWords,
  type Paragraph,
  type TimedWord,
} from '../api/model';

const EXPORTS: Array<{ format: ExportFormat; label: string }> = [
  { format: 'srt', label: 'SRT' },
  { format: 'txt', label: 'TXT' },
  { format: 'docx', label: 'DOCX' },
  { format: 'pdf', label: 'PDF' },
];

/** The audio's current time while it plays, read every animation frame (timeupdate fires ~4 times a second). */
function usePlaybackTime(el: HTMLAudioElement | null) {
  const [time, setTime] = useState(0);
  useEffect(() => {
    if (!el) return;
    let frame = 0;
    const tick = () => {
      setTime(el.currentTime);
      frame = requestAnimationFrame(tick);
    };
    const play = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(tick);
    };
    const stop = () => {
      cancelAnimationFrame(frame);
      setTime(el.currentTime);
    };
    el.addEventListener('play', play);
    el.addEventListener('pause', stop);
    el.addEventListener('ended', stop);
    el.addEventListener('seeked', stop);
    el.addEventListener('timeupdate', stop);
    return () => {
      cancelAnimationFrame(frame);
      el.removeEventListener('play', play);
      el.removeEventListener('pause', stop);
      el.removeEventListener('ended', stop);
      el.removeEventListener('seeked', stop);
      el.removeEventListener('timeupdate', stop);
    };
  }, [el]);
  return time;
}

/** One paragraph; re-renders only when the highlighted word enters, moves within or leaves it. */
const ParagraphView = memo(function ParagraphView({
  paragraph,
  words,
  active,
  label,
  entityOf,
  entities,
}: {
  paragraph: Paragraph;
  words: TimedWord[];
  active: number;
  label: string;
  entityOf: number[];
  entities: DetectedEntity[];
}) {
  return (
    <div className="mb-4">
      <p className="mb-1 text-xs font-semibold text-gray-500" data-testid="stt-paragraph-speaker">
        {label} <span className="font-normal">{formatTime(paragraph.start)}</span>
      </p>
      <p className="leading-relaxed">
        {paragraph.words.map((i) => (
          <span key={i}>
            <span
              data-word={i}
              data-testid="stt-word"
              data-entity={entities[entityOf[i]!]?.entity_type}
              title={entityOf[i]! >= 0 ? entityTypeLabel(entities[entityOf[i]!]!.entity_type) : undefined}
              aria-current={i === active ? 'true' : undefined}
              className={cn(
                'cursor-pointer rounded px-0.5 hover:bg-gray-100 dark:hover:bg-gray-800',
                // Found entities are underlined; redaction markers stand out as such.
                entityOf[i]! >= 0 && 'underline decoration-sky-500 decoration-2 underline-offset-4',
                isRedactionMarker(words[i]!.text) && 'bg-gray-200 font-mono text-sm dark:bg-gray-700',
                i === active && 'bg-amber-200 text-gray-900 hover:bg-amber-200 dark:bg-amber-400',
              )}
            >
              {words[i]!.text}
            </span>{' '}
          </span>
        ))}
      </p>
    </div>
  );
});

function SpeakerNames({
  view,
  channels,
  onSave,
  saving,
}: {
  view: TranscriptView;
  channels: boolean;
  onSave: (id: string, name: string) => void;
  saving: boolean;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const [name, setName] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (editing) onSave(editing, name);
    setEditing(null);
  };
  return (
    <ul aria-label="Speakers" className="flex flex-wrap gap-2">
      {view.speakers.map((id) => {
        const label = speakerLabel(id, view.speaker_names, channels);
        return (
          <li key={id}>
            {editing === id ? (
              <form onSubmit={submit} className="flex items-center gap-1">
                <input
                  autoFocus
                  aria-label={`Name for ${speakerLabel(id, undefined, channels)}`}
                  value={name}
                  maxLength={60}
                  onChange={(e) => setName(e.target.value)}
                  className={cn(inputClass, 'h-8 w-40 py-1 text-sm')}
                />
                <Button type="submit" size="sm" loading={saving}>
                  Save
                </Button>
                <Button variant="ghost" size="sm" onClick={() => setEditing(null)}>
                  Cancel
                </Button>
              </form>
            ) : (
              <Button
                variant="outline"
                size="sm"
                aria-label={`Rename ${label}`}
                onClick={() => {
                  setEditing(id);
                  setName(view.speaker_names[id] ?? '');
                }}
              >
                {label}
              </Button>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** The entities entity_detection found, by type, each a button that plays from where it is said. */
function EntityList({ entities, words, entityOf, onPlay }: { entities: DetectedEntity[]; words: TimedWord[]; entityOf: number[]; onPlay: (word: number) => void }) {
  if (entities.length === 0) return <p className="text-sm text-gray-500">No entities were found in this transcript.</p>;
  return (
    <section aria-label="Entities">
      <h3 className="mb-1 text-sm font-semibold">Entities found ({entities.length})</h3>
      <ul className="flex flex-wrap gap-1.5">
        {entities.map((e, k) => {
          const first = entityOf.indexOf(k);
          return (
            <li key={k}>
              <button
                type="button"
                data-testid="stt-entity"
                disabled={first < 0}
                onClick={() => onPlay(first)}
                className="cursor-pointer rounded-lg border border-sky-200 bg-sky-50 px-2 py-1 text-left text-xs enabled:hover:bg-sky-100 dark:border-sky-900 dark:bg-sky-950"
                title={first >= 0 ? `At ${formatTime(words[first]!.start)}` : undefined}
              >
                <span className="font-semibold">{entityTypeLabel(e.entity_type)}</span> {e.text}
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/**
 * One transcript: its audio with the spoken word highlighted (a click on a word plays from
 * there), speakers that can be renamed, the text editable, exports and deletion.
 */
export function TranscriptViewer({ id, onDeleted }: { id: string; onDeleted: () => void }) {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: transcriptQueryKey(id), queryFn: () => getTranscript(id) });
  // State, not a ref: the element appears once the transcript has loaded, and the hook follows it.
  const [audio, setAudio] = useState<HTMLAudioElement | null>(null);
  const time = usePlaybackTime(audio);
  const [editingText, setEditingText] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [exporting, setExporting] = useState<ExportFormat | null>(null);

  const view = query.data;
  const words = useMemo(() => timedWords(view?.transcript?.words ?? []), [view]);
  const paras = useMemo(() => paragraphs(words), [words]);
  const entities = useMemo(() => view?.transcript?.entities ?? [], [view]);
  const entityOf = useMemo(() => entityOfWords(words, entities), [words, entities]);
  // A multichannel transcript's speakers are its channels.
  const channels = words.some((w) => w.channel !== undefined);
  const active = activeWord(words, time);

  const saved = (v: TranscriptView) => {
    queryClient.setQueryData(transcriptQueryKey(id), v);
    void queryClient.invalidateQueries({ queryKey: transcriptsQueryKey, exact: true });
  };
  const edit = useMutation({
    mutationFn: (body: Parameters<typeof editTranscript>[1]) => editTranscript(id, body),
    onSuccess: (v) => {
      saved(v);
      setEditingText(null);
      toast('Transcript saved.', 'success');
    },
    onError: (e) => toast(httpErrorMessage(e), 'error'),
  });
  const remove = useMutation({
    mutationFn: () => deleteTranscript(id),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: transcriptQueryKey(id) });
      void queryClient.invalidateQueries({ queryKey: transcriptsQueryKey, exact: true });
      setConfirmDelete(false);
      onDeleted();
    },
    onError: (e) => toast(httpErrorMessage(e), 'error'),
  });

  async function download(format: ExportFormat) {
    setExporting(format);
    try {
      const { blob, fileName } = await exportTranscript(id, format);
      saveBlob(blob, fileName);
    } catch (e) {
      toast(httpErrorMessage(e), 'error');
    } finally {
      setExporting(null);
    }
  }

  const playFrom = (i: number) => {
    const w = words[i];
    if (!w || !audio) return;
    audio.currentTime = w.start;
    void audio.play()?.catch(() => undefined);
  };
  const seek = (e: MouseEvent<HTMLDivElement>) => {
    const i = (e.target as HTMLElement).closest('[data-word]')?.getAttribute('data-word');
    if (i != null) playFrom(Number(i));
  };

  if (query.isPending) return <p className="text-sm text-gray-500">Loading the transcript…</p>;
  if (query.isError)
    return (
      <p role="alert" className="text-sm text-red-700 dark:text-red-300">
        {httpErrorMessage(query.error)}
      </p>
    );
  const v = query.data;
  return (
    <article aria-label="Transcript" className="space-y-4">
      <header className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 className="truncate text-lg font-semibold" data-testid="stt-title">
            {v.file_name || 'Untitled audio'}
          </h2>
          <p className="text-xs text-gray-500">
            {formatDate(v.created_at_unix)} · {formatTime(v.audio_duration_secs)}
            {v.language_code ? ` · ${v.language_code}` : ''}
            {v.edited ? ' · edited' : ''}
          </p>
        </div>
        <Button variant="ghost" size="sm" onClick={() => setConfirmDelete(true)}>
          <TrashIcon size={14} /> Delete
        </Button>
      </header>
      {v.has_audio && (
        <audio ref={setAudio} controls preload="metadata" src={transcriptAudioUrl(id)} data-testid="stt-audio" className="w-full" />
      )}
      {v.state === 'processing' && <p className="text-sm text-gray-600">Still transcribing…</p>}
      {v.state === 'failed' && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          The transcription failed: {v.error}
        </p>
      )}
      {v.transcript && (
        <>
          <div className="flex flex-wrap items-center justify-between gap-3">
            <SpeakerNames view={v} channels={channels} saving={edit.isPending} onSave={(sp, name) => edit.mutate({ speaker_names: { [sp]: name } })} />
            <div className="flex flex-wrap gap-1" role="group" aria-label="Download">
              {EXPORTS.map((x) => (
                <Button key={x.format} variant="outline" size="sm" loading={exporting === x.format} onClick={() => void download(x.format)}>
                  <DownloadIcon size={14} /> {x.label}
                </Button>
              ))}
            </div>
          </div>
          {v.transcript.entities && <EntityList entities={entities} words={words} entityOf={entityOf} onPlay={playFrom} />}
          {editingText === null ? (
            <>
              <div onClick={seek} data-testid="stt-text" className="text-base">
                {paras.map((p, k) => {
                  const first = p.words[0]!;
                  const last = p.words[p.words.length - 1]!;
                  return (
                    <ParagraphView
                      key={k}
                      paragraph={p}
                      words={words}
                      active={active >= first && active <= last ? active : -1}
                      label={speakerLabel(p.speaker, v.speaker_names, channels)}
                      entityOf={entityOf}
                      entities={entities}
                    />
                  );
                })}
                {words.length === 0 && <p className="text-sm text-gray-500">No speech was recognised in this audio.</p>}
              </div>
              <Button variant="secondary" size="sm" onClick={() => setEditingText(v.transcript?.text ?? '')}>
                Edit text
              </Button>
            </>
          ) : (
            <form
              className="space-y-2"
              onSubmit={(e) => {
                e.preventDefault();
                edit.mutate({ text: editingText });
              }}
            >
              <TextArea
                aria-label="Transcript text"
                value={editingText}
                onChange={(e) => setEditingText(e.target.value)}
                rows={10}
                className="w-full"
              />
              <p className="text-xs text-gray-500">
                Words you keep keep their timing; new words take the time of what they replace.
              </p>
              <div className="flex gap-2">
                <Button type="submit" size="sm" loading={edit.isPending} disabled={!editingText.trim()}>
                  Save text
                </Button>
                <Button variant="ghost" size="sm" onClick={() => setEditingText(null)}>
                  Cancel
                </Button>
              </div>
            </form>
          )}
        </>
      )}
      <ConfirmDialog
        open={confirmDelete}
        onOpenChange={setConfirmDelete}
        title="Delete this transcript?"
        description="The transcript and its audio are deleted for good."
        confirmLabel="Delete"
        danger
        loading={remove.isPending}
        onConfirm={() => remove.mutate()}
      />
    </article>
  );
}
