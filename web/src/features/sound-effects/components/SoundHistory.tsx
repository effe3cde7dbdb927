import { AudioHistoryList } from '@/components/AudioHistoryList';
import { formatDate, formatTime } from '@/lib/format';
import { deleteSound, errorMessage, extensionOf, HISTORY_PAGE_SIZE, listSounds, soundFileName, soundHistoryQueryKey, type SoundItem } from '../api';

/** The caller's sound effects, newest first: play (looped when made to loop), download, delete. */
export function SoundHistory() {
  return (
    <AudioHistoryList<SoundItem>
      name="sfx"
      queryKey={soundHistoryQueryKey}
      list={listSounds}
      remove={(item) => deleteSound(item.sound_generation_history_item_id)}
      pageSize={HISTORY_PAGE_SIZE}
      errorMessage={errorMessage}
      idOf={(item) => item.sound_generation_history_item_id}
      titleOf={(item) => item.text}
      details={(item) => {
        const s = item.settings;
        return (
          <>
            {formatDate(item.created_at_unix)} · {formatTime(item.duration_seconds)}
            {s.loop ? ' · loop' : ''} · {s.recipes.join(', ') || s.engine} · seed {s.seed}
          </>
        );
      }}
      audioUrl={(item) => item.download_url}
      fileName={(item) => soundFileName(item.text, extensionOf(item.format))}
      player={(item, url, title) => <audio controls autoPlay loop={item.settings.loop} src={url} className="mt-2 w-full" aria-label={`Player of ${title}`} />}
      noun="sound effect"
      loadingText="Loading your sound effects…"
      emptyText="No sound effects yet. Generate one to see it here."
      listLabel="Sound effect history"
    />
  );
}
