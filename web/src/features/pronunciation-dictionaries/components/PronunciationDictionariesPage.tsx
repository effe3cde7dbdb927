import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Badge } from '@/components/Badge';
import { Button } from '@/components/Button';
import { inputClass } from '@/components/Field';
import { DownloadIcon, PlayIcon, PlusIcon, TrashIcon } from '@/components/icons';
import { Spinner } from '@/components/Spinner';
import { httpErrorMessage } from '@/lib/api';
import { saveBlob } from '@/lib/download';
import { usePlayerStore } from '@/lib/player';
import { toast } from '@/lib/toast';
import {
  addRules,
  createFromFile,
  createFromRules,
  dictionariesQueryKey,
  dictionaryQueryKey,
  downloadVersion,
  getDictionary,
  listDictionaries,
  listVoices,
  removeRules,
  ruleSummary,
  sampleSentence,
  speakSample,
  updateDictionary,
  type Changed,
  type DictionaryWithRules,
  type Rule,
  type RuleInput,
} from '../api';

/** /app/pronunciation-dictionaries: dictionaries, their rules and versions. */
export function PronunciationDictionariesPage() {
  const [selected, setSelected] = useState<string | null>(null);
  const list = useQuery({ queryKey: dictionariesQueryKey, queryFn: listDictionaries });
  const current = selected ?? list.data?.[0]?.id ?? null;

  return (
    <div className="mx-auto max-w-6xl p-4 sm:p-8">
      <h1 className="text-2xl font-semibold tracking-tight">Pronunciation dictionaries</h1>
      <p className="mt-1 text-sm text-gray-600 dark:text-gray-400">
        Tell text to speech how to say names, acronyms and jargon. An <strong>alias</strong> rule reads other words
        instead (CEO → “chief executive officer”); a <strong>phoneme</strong> rule gives the sounds in IPA or CMU
        ARPAbet (English sounds). Use a dictionary in a request with <code>pronunciation_dictionary_locators</code>. Every
        change makes a new version; older versions stay usable.
      </p>
      <div className="mt-6 grid gap-6 lg:grid-cols-[18rem_1fr]">
        <aside>
          <CreateDictionary onCreated={(id) => setSelected(id)} />
          <h2 className="mt-6 text-xs font-medium text-gray-500 uppercase">Your dictionaries</h2>
          {list.isPending && <Spinner />}
          {list.isError && <p role="alert" className="text-sm text-red-600">{httpErrorMessage(list.error)}</p>}
          {list.data?.length === 0 && <p className="mt-2 text-sm text-gray-500">None yet.</p>}
          <ul className="mt-2 space-y-1" data-testid="dictionary-list">
            {list.data?.map((d) => (
              <li key={d.id}>
                <button
                  type="button"
                  onClick={() => setSelected(d.id)}
                  aria-current={d.id === current ? 'true' : undefined}
                  className="flex w-full items-center justify-between rounded-lg px-3 py-2 text-left text-sm hover:bg-gray-100 aria-[current]:bg-gray-100 dark:hover:bg-gray-800 dark:aria-[current]:bg-gray-800"
                >
                  <span className="truncate">{d.name}</span>
                  <span className="ml-2 flex shrink-0 items-center gap-1 text-xs text-gray-500">
                    {d.archived_time_unix != null && <Badge>archived</Badge>}
                    {d.latest_version_rules_num} rules
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </aside>
        <section>{current && <DictionaryDetail key={current} id={current} />}</section>
      </div>
    </div>
  );
}

function CreateDictionary({ onCreated }: { onCreated: (id: string) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const create = useMutation({
    mutationFn: () => (file ? createFromFile(name.trim(), file) : createFromRules(name.trim(), [])),
    onSuccess: (d) => {
      toast.success(`Created “${d.name}” (version ${d.version_id}, ${d.version_rules_num} rules).`);
      setName('');
      setFile(null);
      void queryClient.invalidateQueries({ queryKey: dictionariesQueryKey });
      onCreated(d.id);
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    if (name.trim()) create.mutate();
  }
  return (
    <form onSubmit={submit} className="space-y-2 rounded-xl border border-gray-200 p-3 dark:border-gray-800">
      <label className="block text-sm font-medium" htmlFor="new-dictionary-name">
        New dictionary
      </label>
      <input id="new-dictionary-name" className={inputClass} placeholder="Name" value={name} onChange={(e) => setName(e.target.value)} />
      <label className="block text-xs text-gray-500">
        From a PLS lexicon (optional)
        <input
          type="file"
          accept=".pls,.xml,application/pls+xml,text/xml"
          aria-label="PLS file"
          className="mt-1 block w-full text-xs"
          onChange={(e) => setFile(e.target.files?.[0] ?? null)}
        />
      </label>
      <Button type="submit" size="sm" loading={create.isPending} disabled={!name.trim()}>
        <PlusIcon size={14} /> {file ? 'Upload' : 'Create'}
      </Button>
    </form>
  );
}

function DictionaryDetail({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const player = usePlayerStore();
  const [lastChange, setLastChange] = useState<Changed | null>(null);
  const dict = useQuery({ queryKey: dictionaryQueryKey(id), queryFn: () => getDictionary(id) });
  const voices = useQuery({ queryKey: ['workspace', 'voices', 'pronunciation'], queryFn: listVoices });
  const [voiceId, setVoiceId] = useState('');
  const voice = voiceId || voices.data?.voices[0]?.voice_id || '';

  const refresh = (c?: Changed) => {
    if (c) setLastChange(c);
    void queryClient.invalidateQueries({ queryKey: dictionariesQueryKey });
  };
  const add = useMutation({ mutationFn: (r: RuleInput) => addRules(id, [r]), onSuccess: refresh, onError: (e) => toast.error(httpErrorMessage(e)) });
  const remove = useMutation({ mutationFn: (s: string) => removeRules(id, [s]), onSuccess: refresh, onError: (e) => toast.error(httpErrorMessage(e)) });
  const archive = useMutation({
    mutationFn: (archived: boolean) => updateDictionary(id, { archived }),
    onSuccess: () => refresh(),
    onError: (e) => toast.error(httpErrorMessage(e)),
  });
  const download = useMutation({
    mutationFn: async (d: DictionaryWithRules) => saveBlob(await downloadVersion(d.id, d.latest_version_id), `${d.name}.pls`),
    onError: (e) => toast.error(httpErrorMessage(e)),
  });
  const play = useMutation({
    mutationFn: async ({ rule, d }: { rule: Rule; d: DictionaryWithRules }) => ({
      rule,
      blob: await speakSample(voice, rule.string_to_replace, d.id, d.latest_version_id),
    }),
    onSuccess: ({ rule, blob }) =>
      player.load({
        id: `pron-${Date.now()}`,
        src: URL.createObjectURL(blob),
        revokeSrc: true,
        type: 'text-to-speech',
        title: sampleSentence(rule.string_to_replace),
        text: sampleSentence(rule.string_to_replace),
        voiceId: voice,
        autoStart: true,
      }),
    onError: (e) => toast.error(httpErrorMessage(e)),
  });

  if (dict.isPending) return <Spinner />;
  if (dict.isError) return <p role="alert" className="text-sm text-red-600">{httpErrorMessage(dict.error)}</p>;
  const d = dict.data;
  const canEdit = d.permission_on_resource === 'admin' || d.permission_on_resource === 'editor';
  const archived = d.archived_time_unix != null;

  return (
    <div data-testid="dictionary-detail">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div>
          <h2 className="text-xl font-semibold">{d.name}</h2>
          <p className="text-xs text-gray-500" data-testid="dictionary-version">
            Version {d.latest_version_id} · {d.latest_version_rules_num} rules
          </p>
        </div>
        <div className="flex gap-2">
          <Button variant="outline" size="sm" onClick={() => download.mutate(d)} loading={download.isPending}>
            <DownloadIcon size={14} /> Download PLS
          </Button>
          {canEdit && (
            <Button variant="outline" size="sm" onClick={() => archive.mutate(!archived)} loading={archive.isPending}>
              {archived ? 'Unarchive' : 'Archive'}
            </Button>
          )}
        </div>
      </div>
      {lastChange && (
        <p role="status" className="mt-3 rounded-lg bg-emerald-50 px-3 py-2 text-sm text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200">
          Saved as version {lastChange.version_id} ({lastChange.version_rules_num} rules). Requests that name the old
          version keep it.
        </p>
      )}

      <div className="mt-4 flex items-center gap-2 text-sm">
        <label htmlFor="pron-voice" className="whitespace-nowrap">
          Hear rules with
        </label>
        <select id="pron-voice" className={`${inputClass} w-auto`} value={voice} onChange={(e) => setVoiceId(e.target.value)}>
          {voices.data?.voices.map((v) => (
            <option key={v.voice_id} value={v.voice_id}>
              {v.name}
            </option>
          ))}
        </select>
      </div>

      <table className="mt-4 w-full text-left text-sm">
        <thead className="text-xs text-gray-500 uppercase">
          <tr>
            <th className="py-2">Word</th>
            <th>Says</th>
            <th>Match</th>
            <th className="sr-only">Actions</th>
          </tr>
        </thead>
        <tbody>
          {d.rules.length === 0 && (
            <tr>
              <td colSpan={4} className="py-3 text-gray-500">
                No rules yet.
              </td>
            </tr>
          )}
          {d.rules.map((r) => (
            <tr key={r.string_to_replace} className="border-t border-gray-100 dark:border-gray-800">
              <td className="py-2 font-medium">{r.string_to_replace}</td>
              <td>{ruleSummary(r)}</td>
              <td className="text-xs text-gray-500">
                {r.case_sensitive === false ? 'any case' : 'exact case'} · {r.word_boundaries === false ? 'anywhere' : 'whole words'}
              </td>
              <td className="text-right whitespace-nowrap">
                <Button
                  variant="ghost"
                  size="sm"
                  aria-label={`Play ${r.string_to_replace}`}
                  disabled={!voice || play.isPending}
                  onClick={() => play.mutate({ rule: r, d })}
                >
                  <PlayIcon size={14} />
                </Button>
                {canEdit && (
                  <Button variant="ghost" size="sm" aria-label={`Remove ${r.string_to_replace}`} onClick={() => remove.mutate(r.string_to_replace)}>
                    <TrashIcon size={14} />
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {canEdit && <RuleEditor busy={add.isPending} onAdd={(r) => add.mutate(r)} />}
      <p className="mt-6 text-xs text-gray-500">
        Phoneme rules are spoken by the built-in engines exactly: espeak-ng voices through its phoneme input, flite
        voices through a lexicon entry for the word. A voice served by an external engine hears alias rules only.
      </p>
    </div>
  );
}

function RuleEditor({ busy, onAdd }: { busy: boolean; onAdd: (r: RuleInput) => void }) {
  const [type, setType] = useState<'alias' | 'phoneme'>('alias');
  const [word, setWord] = useState('');
  const [alias, setAlias] = useState('');
  const [phoneme, setPhoneme] = useState('');
  const [alphabet, setAlphabet] = useState<'ipa' | 'cmu-arpabet'>('ipa');
  const [caseSensitive, setCaseSensitive] = useState(true);
  const [wordBoundaries, setWordBoundaries] = useState(true);
  const ready = word.trim() !== '' && (type === 'alias' ? alias.trim() !== '' : phoneme.trim() !== '');

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!ready) return;
    const common = { string_to_replace: word.trim(), case_sensitive: caseSensitive, word_boundaries: wordBoundaries };
    onAdd(type === 'alias' ? { ...common, type, alias: alias.trim() } : { ...common, type, phoneme: phoneme.trim(), alphabet });
    setWord('');
    setAlias('');
    setPhoneme('');
  }

  return (
    <form onSubmit={submit} className="mt-6 grid gap-3 rounded-xl border border-gray-200 p-4 sm:grid-cols-2 dark:border-gray-800" aria-label="Add a rule">
      <label className="text-sm">
        Rule type
        <select className={inputClass} value={type} onChange={(e) => setType(e.target.value as 'alias' | 'phoneme')}>
          <option value="alias">Alias (say other words)</option>
          <option value="phoneme">Phoneme (say these sounds)</option>
        </select>
      </label>
      <label className="text-sm">
        Word or phrase
        <input className={inputClass} value={word} onChange={(e) => setWord(e.target.value)} placeholder="CEO" />
      </label>
      {type === 'alias' ? (
        <label className="text-sm sm:col-span-2">
          Say instead
          <input className={inputClass} value={alias} onChange={(e) => setAlias(e.target.value)} placeholder="chief executive officer" />
        </label>
      ) : (
        <>
          <label className="text-sm">
            Phonemes
            <input
              className={inputClass}
              value={phoneme}
              onChange={(e) => setPhoneme(e.target.value)}
              placeholder={alphabet === 'ipa' ? 'təˈmɑːtoʊ' : 'T AH0 M AA1 T OW0'}
            />
          </label>
          <label className="text-sm">
            Alphabet
            <select className={inputClass} value={alphabet} onChange={(e) => setAlphabet(e.target.value as 'ipa' | 'cmu-arpabet')}>
              <option value="ipa">IPA</option>
              <option value="cmu-arpabet">CMU ARPAbet</option>
            </select>
          </label>
        </>
      )}
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={caseSensitive} onChange={(e) => setCaseSensitive(e.target.checked)} /> Match case
      </label>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={wordBoundaries} onChange={(e) => setWordBoundaries(e.target.checked)} /> Whole words only
      </label>
      <div className="sm:col-span-2">
        <Button type="submit" size="sm" loading={busy} disabled={!ready}>
          <PlusIcon size={14} /> Add rule
        </Button>
      </div>
    </form>
  );
}
