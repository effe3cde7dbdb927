import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useState, type ReactNode } from 'react';
import { Button } from '@/components/Button';
import { cn } from '@/components/cn';
import { Select, TextArea } from '@/components/Field';
import { AlertIcon } from '@/components/icons';
import { accessQueryKey, FEATURES, isFeatureNotAllowed, useWorkspaceAccess } from '@/lib/access';
import { httpErrorMessage } from '@/lib/api';
import { countCharacters, creditCost, modelLimit, useCapabilities } from '@/lib/capabilities';
import { DEFAULT_MODEL_ID, DEFAULT_OUTPUT_FORMAT } from '@/lib/constants';
import { formatNumber, truncate } from '@/lib/format';
import { usePlayerStore } from '@/lib/player';
import { getItem, setItem, STORAGE_KEYS } from '@/lib/storage';
import { toast } from '@/lib/toast';
import { FALLBACK_VOICE_SETTINGS, generateSpeech, OUTPUT_FORMATS, type OutputFormat, type VoiceSettings } from '../api';
import { useDefaultVoiceSettings, useModels, useVoices } from '../hooks/queries';
import { usePersistentSelection } from '../hooks/usePersistentSelection';
import { DialogueMode, newDialogueLine, type DialogueDraftLine } from './DialogueMode';
import { VoicePicker } from './VoicePicker';
import { VoiceSettingsPanel } from './VoiceSettingsPanel';

/** The free plan's per-request limit: shown until the caller's own limits have loaded. */
export const DEFAULT_MAX_TEXT_LENGTH = 2500;

/** What the editor holds: restored on reload, and filled from a history item on request. */
export interface EditorDraft {
  text: string;
  voiceId?: string | null;
  modelId?: string | null;
  settings?: Partial<VoiceSettings> | null;
  /** A dialogue's lines: the page switches to dialogue mode with them. */
  dialogue?: Array<{ text: string; voice_id: string }> | null;
}

type Mode = 'text' | 'dialogue';

export const TTS_NOT_ALLOWED = "Your workspace groups don't include text to speech, so you can't generate speech here. Ask a workspace admin for access.";

type Tab = 'settings' | 'history';

interface TextToSpeechPageProps {
  /** The history panel, composed in by the app layer. */
  historyPanel?: ReactNode;
  initialTab?: Tab;
  onTabChange?: (tab: Tab) => void;
  /** Called after a successful generation (the app refreshes history and usage). */
  onGenerated?: (historyItemId: string | null) => void;
  /** Credits left this period, when known (for a warning only; the server decides). */
  creditsRemaining?: number;
  /** A draft to load into the editor (a history item the user picked); loaded when it changes. */
  draft?: EditorDraft | null;
}

function loadStoredSettings(): VoiceSettings | null {
  try {
    const raw = getItem(STORAGE_KEYS.voiceSettings);
    return raw ? { ...FALLBACK_VOICE_SETTINGS, ...(JSON.parse(raw) as Partial<VoiceSettings>) } : null;
  } catch {
    return null;
  }
}

export function TextToSpeechPage({
  historyPanel,
  initialTab = 'settings',
  onTabChange,
  onGenerated,
  creditsRemaining,
  draft,
}: TextToSpeechPageProps) {
  const textId = useId();
  const modelSelectId = useId();
  const formatId = useId();
  const blockedId = useId();
  const player = usePlayerStore();
  const queryClient = useQueryClient();
  const access = useWorkspaceAccess();
  // Set when the server refuses with feature_not_allowed although the cached access allowed it.
  const [refused, setRefused] = useState(false);
  const ttsAllowed = access.canUse(FEATURES.textToSpeech) && !refused;
  // The typed text survives a reload (kept in this browser; cleared on sign-out).
  const [text, setTextState] = useState(() => getItem(STORAGE_KEYS.ttsText) ?? '');
  const setText = (t: string) => {
    setTextState(t);
    setItem(STORAGE_KEYS.ttsText, t || null);
  };
  // How many characters the last paste or edit lost to the limit (0 = none).
  const [cutBy, setCutBy] = useState(0);
  const [tab, setTab] = useState<Tab>(initialTab);
  const [mode, setMode] = useState<Mode>('text');
  const [dialogueLines, setDialogueLines] = useState<DialogueDraftLine[]>(() => [newDialogueLine(), newDialogueLine()]);
  useEffect(() => setTab(initialTab), [initialTab]);

  const voicesQuery = useVoices();
  const modelsQuery = useModels();
  const defaultsQuery = useDefaultVoiceSettings();

  const voices = voicesQuery.data?.voices;
  const ttsModels = useMemo(
    () => modelsQuery.data?.filter((m) => m.can_do_text_to_speech !== false),
    [modelsQuery.data],
  );
  const [voiceId, setVoiceId] = usePersistentSelection(
    STORAGE_KEYS.selectedVoice,
    useMemo(() => voices?.map((v) => v.voice_id), [voices]),
  );
  const [modelId, setModelId] = usePersistentSelection(
    STORAGE_KEYS.selectedModel,
    useMemo(() => ttsModels?.map((m) => m.model_id), [ttsModels]),
    DEFAULT_MODEL_ID,
  );
  const [extraVoice, setExtraVoice] = useState<NonNullable<typeof voices>[number] | undefined>();
  const selectedVoice = voices?.find((v) => v.voice_id === voiceId) ?? (extraVoice?.voice_id === voiceId ? extraVoice : undefined);
  const selectedModel = ttsModels?.find((m) => m.model_id === modelId);

  // Lines without a voice get the selected voice (first line) and another one (second line).
  useEffect(() => {
    if (!voices?.length || dialogueLines.every((l) => l.voiceId)) return;
    const first = voiceId ?? voices[0].voice_id;
    const second = voices.find((v) => v.voice_id !== first)?.voice_id ?? first;
    setDialogueLines((ls) => ls.map((l, i) => (l.voiceId ? l : { ...l, voiceId: i % 2 === 0 ? first : second })));
  }, [voices, voiceId, dialogueLines]);

  const [outputFormat, setOutputFormatState] = useState<OutputFormat>(() => {
    const stored = getItem(STORAGE_KEYS.outputFormat);
    return OUTPUT_FORMATS.find((f) => f.value === stored)?.value ?? DEFAULT_OUTPUT_FORMAT;
  });
  const setOutputFormat = (v: OutputFormat) => {
    setItem(STORAGE_KEYS.outputFormat, v);
    setOutputFormatState(v);
  };

  const [settings, setSettingsState] = useState<VoiceSettings | null>(loadStoredSettings);
  const setSettings = (v: VoiceSettings | null) => {
    setSettingsState(v);
    setItem(STORAGE_KEYS.voiceSettings, v ? JSON.stringify(v) : null);
  };
  const defaults = defaultsQuery.data ?? FALLBACK_VOICE_SETTINGS;
  const effectiveSettings = settings ?? defaults;

  // The limit and price of one request on the caller's plan, as the server applies them.
  const capabilities = useCapabilities();
  const limit = modelLimit(capabilities.data, modelId);
  const maxLength =
    limit?.max_characters_per_request ?? selectedModel?.max_characters_request_free_user ?? DEFAULT_MAX_TEXT_LENGTH;
  const multiplier = limit?.character_cost_multiplier ?? selectedModel?.model_rates?.character_cost_multiplier ?? 1;
  const characters = countCharacters(text);
  const cost = creditCost(characters, multiplier);
  const tooLong = characters > maxLength;
  const overLimit = creditsRemaining !== undefined && cost > creditsRemaining;
  const planName = capabilities.data?.plan?.name;

  // A history item the user picked: its text, voice, model and settings come back into the editor.
  useEffect(() => {
    if (!draft) return;
    if (draft.dialogue?.length) {
      setMode('dialogue');
      setDialogueLines(draft.dialogue.map((l) => newDialogueLine(l.voice_id, l.text)));
      if (draft.modelId) setModelId(draft.modelId);
      return;
    }
    setMode('text');
    setText(draft.text);
    setCutBy(0);
    if (draft.voiceId) setVoiceId(draft.voiceId);
    if (draft.modelId) setModelId(draft.modelId);
    if (draft.settings) setSettings({ ...FALLBACK_VOICE_SETTINGS, ...draft.settings });
    // Loaded once per picked draft (a new object each pick), not on every render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [draft]);

  const changeText = (value: string) => {
    if (Array.from(value).length > maxLength && value.length > text.length) {
      const kept = Array.from(value).slice(0, Math.max(maxLength, Array.from(text).length)).join('');
      setCutBy(Array.from(value).length - Array.from(kept).length);
      setText(kept);
      return;
    }
    setCutBy(0);
    setText(value);
  };

  const generate = useMutation({
    mutationFn: generateSpeech,
    onSuccess: (audio, req) => {
      const src = URL.createObjectURL(audio.blob);
      player.load({
        id: audio.historyItemId ?? `tts-${Date.now()}`,
        src,
        revokeSrc: true,
        type: 'text-to-speech',
        title: truncate(req.text.replace(/\s+/g, ' ').trim(), 100),
        voiceName: selectedVoice?.name,
        voiceId: req.voiceId,
        historyItemId: audio.historyItemId ?? undefined,
        text: req.text,
        outputFormat: req.outputFormat,
        autoStart: true,
      });
      onGenerated?.(audio.historyItemId);
    },
    onError: (err) => {
      if (isFeatureNotAllowed(err)) {
        setRefused(true);
        void queryClient.invalidateQueries({ queryKey: accessQueryKey });
      } else toast.error(httpErrorMessage(err));
    },
  });

  const canGenerate = ttsAllowed && Boolean(characters > 0 && voiceId && modelId && !tooLong) && !generate.isPending;
  const submit = () => {
    if (!canGenerate || !voiceId || !modelId) return;
    generate.mutate({ voiceId, modelId, text, outputFormat, voiceSettings: effectiveSettings });
  };

  const loadError = voicesQuery.error ?? modelsQuery.error;

  const changeTab = (t: Tab) => {
    setTab(t);
    onTabChange?.(t);
  };

  return (
    // On wide screens the page fits the window above the player, so the player never covers
    // Generate or the settings: each column scrolls on its own.
    <div className="flex min-h-full flex-col lg:h-[calc(100dvh-var(--player-offset,0px))] lg:min-h-0 lg:flex-row">
      <section className="flex min-h-[24rem] flex-1 flex-col border-gray-200 p-4 sm:p-6 lg:overflow-y-auto lg:border-r dark:border-gray-800">
        <h1 className="mb-4 text-xl font-semibold tracking-tight">Text to Speech</h1>
        {loadError && (
          <p role="alert" className="mb-4 flex items-center gap-2 rounded-lg bg-red-50 p-3 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
            <AlertIcon size={16} /> {httpErrorMessage(loadError)}
          </p>
        )}
        <div role="radiogroup" aria-label="Mode" className="mb-4 inline-flex self-start rounded-lg bg-gray-100 p-1 text-sm dark:bg-gray-900">
          {(
            [
              ['text', 'Text'],
              ['dialogue', 'Dialogue'],
            ] as const
          ).map(([m, label]) => (
            <button
              key={m}
              type="button"
              role="radio"
              aria-checked={mode === m}
              onClick={() => setMode(m)}
              className={cn(
                'cursor-pointer rounded-md px-3 py-1 font-medium',
                mode === m ? 'bg-white text-gray-900 shadow-xs dark:bg-gray-800 dark:text-white' : 'text-gray-600 dark:text-gray-400',
              )}
            >
              {label}
            </button>
          ))}
        </div>
        {mode === 'dialogue' ? (
          <>
            <DialogueMode
              lines={dialogueLines}
              onLinesChange={setDialogueLines}
              voices={voices}
              modelId={modelId}
              outputFormat={outputFormat}
              stability={effectiveSettings.stability}
              allowed={ttsAllowed}
              onGenerated={onGenerated}
              onError={(err) => {
                if (!isFeatureNotAllowed(err)) return false;
                setRefused(true);
                void queryClient.invalidateQueries({ queryKey: accessQueryKey });
                return true;
              }}
            />
            {!ttsAllowed && (
              <p role="status" className="mt-2 flex items-center gap-2 text-sm text-amber-800 dark:text-amber-200">
                <AlertIcon size={16} /> {TTS_NOT_ALLOWED}
              </p>
            )}
          </>
        ) : (
          <>
          <label htmlFor={textId} className="sr-only">
            Text
          </label>
          <TextArea
            id={textId}
            value={text}
            onChange={(e) => changeText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                submit();
              }
            }}
            aria-invalid={tooLong || undefined}
            aria-describedby={tooLong || cutBy > 0 ? `${textId}-limit` : undefined}
            placeholder="Start typing here or paste any text you want to turn into lifelike speech…"
            className="min-h-[16rem] flex-1 border-transparent bg-transparent p-0 text-base leading-relaxed shadow-none! focus:border-transparent focus:ring-0 dark:border-transparent dark:bg-transparent dark:focus:border-transparent"
          />
          <div className="mt-4 flex flex-wrap items-center justify-between gap-3 border-t border-gray-200 pt-4 dark:border-gray-800">
            <div className="text-sm text-gray-600 dark:text-gray-400" aria-live="polite">
              <span data-testid="character-count" className={cn(tooLong && 'font-medium text-red-600 dark:text-red-400')}>
                {formatNumber(characters)} / {formatNumber(maxLength)} characters
              </span>
              <span className="mx-2" aria-hidden="true">
                ·
              </span>
              <span data-testid="cost">
                {formatNumber(cost)} {cost === 1 ? 'credit' : 'credits'}
              </span>
              {creditsRemaining !== undefined && (
                <span className={cn('ml-2', overLimit && 'font-medium text-red-600 dark:text-red-400')}>
                  ({formatNumber(Math.max(0, creditsRemaining))} remaining)
                </span>
              )}
            </div>
            <Button
              size="lg"
              onClick={submit}
              disabled={!canGenerate}
              loading={generate.isPending}
              aria-describedby={ttsAllowed ? undefined : blockedId}
            >
              Generate speech
            </Button>
          </div>
          {tooLong && (
            <p id={`${textId}-limit`} role="alert" className="mt-2 text-sm text-red-600 dark:text-red-400">
              This text is {formatNumber(characters)} characters long. {selectedModel?.name ?? 'This model'} takes at most{' '}
              {formatNumber(maxLength)} characters per request{planName ? ` on the ${planName} plan` : ''}: shorten the text or pick
              another model.
            </p>
          )}
          {!tooLong && cutBy > 0 && (
            <p id={`${textId}-limit`} role="status" className="mt-2 text-sm text-amber-800 dark:text-amber-200">
              The pasted text was cut: its last {formatNumber(cutBy)} {cutBy === 1 ? 'character was' : 'characters were'} left out,
              because one request takes at most {formatNumber(maxLength)} characters{planName ? ` on the ${planName} plan` : ''}.
            </p>
          )}
          {!ttsAllowed && (
            <p id={blockedId} role="status" className="mt-2 flex items-center gap-2 text-sm text-amber-800 dark:text-amber-200">
              <AlertIcon size={16} /> {TTS_NOT_ALLOWED}
            </p>
          )}
          {overLimit && (
            <p className="mt-2 text-sm text-red-600 dark:text-red-400">
              This text needs more credits than you have left this period.
            </p>
          )}
          </>
        )}
      </section>

      <aside className="w-full shrink-0 lg:w-96 lg:overflow-y-auto xl:w-[26rem]">
        <div role="tablist" aria-label="Text to speech panels" className="flex border-b border-gray-200 px-4 dark:border-gray-800">
          {(['settings', 'history'] as const).map((t) => (
            <button
              key={t}
              type="button"
              role="tab"
              id={`tts-tab-${t}`}
              aria-selected={tab === t}
              aria-controls={`tts-panel-${t}`}
              onClick={() => changeTab(t)}
              className={cn(
                '-mb-px cursor-pointer border-b-2 px-3 py-3 text-sm font-medium capitalize',
                tab === t
                  ? 'border-gray-900 text-gray-900 dark:border-white dark:text-white'
                  : 'border-transparent text-gray-500 hover:text-gray-800 dark:hover:text-gray-200',
              )}
            >
              {t}
            </button>
          ))}
        </div>
        <div
          role="tabpanel"
          id="tts-panel-settings"
          aria-labelledby="tts-tab-settings"
          hidden={tab !== 'settings'}
          className="space-y-5 p-4 sm:p-6"
        >
          {mode === 'text' && (
            <VoicePicker
              voices={voices}
              selected={selectedVoice}
              loading={voicesQuery.isPending}
              onSelect={(v) => {
                if (!voices?.some((x) => x.voice_id === v.voice_id)) setExtraVoice(v);
                setVoiceId(v.voice_id);
              }}
            />
          )}
          <div>
            <label htmlFor={modelSelectId} className="mb-1.5 block text-sm font-medium text-gray-800 dark:text-gray-200">
              Model
            </label>
            <Select
              id={modelSelectId}
              value={modelId ?? ''}
              onChange={(e) => setModelId(e.target.value)}
              disabled={!ttsModels?.length}
            >
              {!ttsModels && <option value="">Loading models…</option>}
              {ttsModels?.map((m) => (
                <option key={m.model_id} value={m.model_id}>
                  {m.name}
                </option>
              ))}
            </Select>
            {selectedModel?.description && (
              <p className="mt-1.5 text-xs text-gray-500 dark:text-gray-400">{selectedModel.description}</p>
            )}
          </div>
          <VoiceSettingsPanel
            value={effectiveSettings}
            onChange={setSettings}
            onReset={() => setSettings(defaults)}
            canUseStyle={selectedModel?.can_use_style !== false}
            canUseSpeakerBoost={selectedModel?.can_use_speaker_boost !== false}
            stabilityOnly={mode === 'dialogue'}
          />
          <div>
            <label htmlFor={formatId} className="mb-1.5 block text-sm font-medium text-gray-800 dark:text-gray-200">
              Output format
            </label>
            <Select id={formatId} value={outputFormat} onChange={(e) => setOutputFormat(e.target.value as OutputFormat)}>
              {OUTPUT_FORMATS.map((f) => (
                <option key={f.value} value={f.value}>
                  {f.label}
                </option>
              ))}
            </Select>
          </div>
        </div>
        <div role="tabpanel" id="tts-panel-history" aria-labelledby="tts-tab-history" hidden={tab !== 'history'}>
          {tab === 'history' && historyPanel}
        </div>
      </aside>
    </div>
  );
}
