import { useEffect, useId, useState } from 'react';
import { BadgeList } from '@/components/Badge';
import { cn } from '@/components/cn';
import { Dialog } from '@/components/Dialog';
import { inputClass } from '@/components/Field';
import { ChevronDownIcon, PauseIcon, PlayIcon, SearchIcon } from '@/components/icons';
import { Spinner } from '@/components/Spinner';
import { MESSAGES } from '@/lib/constants';
import { usePlayerSelector, usePlayerStore } from '@/lib/player';
import { toast } from '@/lib/toast';
import type { Voice } from '../api';
import { useDebounced } from '../hooks/useDebounced';
import { useVoices } from '../hooks/queries';
import { humanizeLabel } from '@/lib/format';
import { serverPath } from '@/lib/url';

export function voiceLabels(voice: Voice): string[] {
  const l = voice.labels ?? {};
  return [l.accent, l.gender, l.age, l.descriptive, l.use_case].filter((x): x is string => Boolean(x)).map(humanizeLabel);
}

function Avatar({ name }: { name: string }) {
  const hue = [...name].reduce((a, c) => a + c.charCodeAt(0), 0) % 360;
  return (
    <span
      aria-hidden="true"
      className="flex size-8 shrink-0 items-center justify-center rounded-full text-xs font-semibold text-white"
      style={{ background: `linear-gradient(135deg, hsl(${hue} 70% 55%), hsl(${(hue + 50) % 360} 70% 45%))` }}
    >
      {name.slice(0, 1).toUpperCase()}
    </span>
  );
}

/** Player item id of a voice's preview. */
export const previewItemId = (voiceId: string) => `voice-preview:${voiceId}`;

/**
 * Voice previews (preview_url) play through the global player as type
 * voicePreview. A preview that fails to load or play shows "We are sorry,
 * something went wrong." (spec §8); a blocked autoplay is only logged.
 */
export function useVoicePreview() {
  const player = usePlayerStore();
  const currentId = usePlayerSelector((s) => s.item?.id ?? null);
  const playingId = usePlayerSelector((s) =>
    s.item?.type === 'voicePreview' && (s.status === 'playing' || s.status === 'loading') ? (s.item.voiceId ?? null) : null,
  );
  useEffect(
    () =>
      player.onError((failed) => {
        if (failed.type === 'voicePreview') toast.error(MESSAGES.previewFailed);
      }),
    [player],
  );
  const toggle = (voice: Voice) => {
    if (!voice.preview_url) return;
    if (currentId === previewItemId(voice.voice_id)) {
      player.toggle();
      return;
    }
    player.load({
      id: previewItemId(voice.voice_id),
      src: serverPath(voice.preview_url),
      type: 'voicePreview',
      title: 'Voice preview',
      voiceName: voice.name,
      voiceId: voice.voice_id,
      autoStart: true,
    });
  };
  return { playingId, toggle };
}

interface VoicePickerProps {
  voices: Voice[] | undefined;
  selected: Voice | undefined;
  onSelect: (voice: Voice) => void;
  loading?: boolean;
}

export function VoicePicker({ voices, selected, onSelect, loading }: VoicePickerProps) {
  const triggerId = useId();
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState('');
  const debounced = useDebounced(search.trim(), 300);
  const searchQuery = useVoices(debounced);
  const list = debounced ? searchQuery.data?.voices : voices;
  const preview = useVoicePreview();

  const close = (next: boolean) => {
    setOpen(next);
    if (!next) setSearch('');
  };

  return (
    <div>
      <label htmlFor={triggerId} className="mb-1.5 block text-sm font-medium text-gray-800 dark:text-gray-200">
        Voice
      </label>
      <button
        id={triggerId}
        type="button"
        onClick={() => setOpen(true)}
        disabled={loading && !voices}
        aria-haspopup="dialog"
        className={cn(inputClass, 'flex cursor-pointer items-center gap-3 text-left')}
      >
        {selected ? <Avatar name={selected.name} /> : loading ? <Spinner /> : null}
        <span className="min-w-0 flex-1 truncate">
          {selected?.name ?? (loading ? 'Loading voices…' : 'No voices available')}
        </span>
        <ChevronDownIcon size={16} />
      </button>

      <Dialog open={open} onOpenChange={close} title="Select a voice" className="max-w-lg">
        <div className="relative mb-3">
          <SearchIcon size={16} className="pointer-events-none absolute top-1/2 left-3 -translate-y-1/2 text-gray-400" />
          <label htmlFor={`${triggerId}-search`} className="sr-only">
            Search voices
          </label>
          <input
            id={`${triggerId}-search`}
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder="Search voices"
            className={cn(inputClass, 'pl-9')}
            autoComplete="off"
          />
        </div>
        <ul role="listbox" aria-label="Voices" className="-mx-2 max-h-[min(24rem,50vh)] overflow-y-auto">
          {debounced && searchQuery.isFetching && !list && (
            <li className="flex items-center gap-2 p-3 text-sm text-gray-500">
              <Spinner /> Searching…
            </li>
          )}
          {list?.length === 0 && <li className="p-3 text-sm text-gray-500">No voices found.</li>}
          {list?.map((voice) => {
            const isSelected = voice.voice_id === selected?.voice_id;
            return (
              <li
                key={voice.voice_id}
                role="option"
                aria-selected={isSelected}
                className={cn(
                  'flex items-center gap-2 rounded-lg px-2 py-1.5',
                  isSelected ? 'bg-gray-100 dark:bg-gray-800' : 'hover:bg-gray-50 dark:hover:bg-gray-800/60',
                )}
              >
                <button
                  type="button"
                  onClick={() => {
                    onSelect(voice);
                    close(false);
                  }}
                  className="flex min-w-0 flex-1 cursor-pointer items-center gap-3 rounded-md py-1 text-left"
                >
                  <Avatar name={voice.name} />
                  <span className="min-w-0 flex-1">
                    <span className="block truncate text-sm font-medium">{voice.name}</span>
                    <BadgeList items={voiceLabels(voice)} />
                  </span>
                </button>
                {voice.preview_url && (
                  <button
                    type="button"
                    onClick={() => preview.toggle(voice)}
                    aria-label={`${preview.playingId === voice.voice_id ? 'Stop preview of' : 'Preview'} ${voice.name}`}
                    className="flex size-8 shrink-0 cursor-pointer items-center justify-center rounded-full border border-gray-200 hover:bg-white dark:border-gray-700 dark:hover:bg-gray-900"
                  >
                    {preview.playingId === voice.voice_id ? <PauseIcon size={12} /> : <PlayIcon size={12} />}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      </Dialog>
    </div>
  );
}
