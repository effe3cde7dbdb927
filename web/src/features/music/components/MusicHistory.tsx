import { AudioHistoryList } from '@/components/AudioHistoryList';
import { Button } from '@/components/Button';
import { formatDate, formatTime } from '@/lib/format';
import { deleteSong, errorMessage, HISTORY_PAGE_SIZE, listSongs, musicHistoryQueryKey, songAudioUrl, songFileName, type SongItem } from '../api';

/** The caller's songs, newest first: play, download, reuse the plan and seed, delete. */
export function MusicHistory({ onReuse }: { onReuse?: (item: SongItem) => void }) {
  return (
    <AudioHistoryList<SongItem>
      name="music"
      queryKey={musicHistoryQueryKey}
      list={listSongs}
      remove={(item) => deleteSong(item.song_id)}
      pageSize={HISTORY_PAGE_SIZE}
      errorMessage={errorMessage}
      idOf={(item) => item.song_id}
      titleOf={(item) => item.title}
      details={(item) => (
        <>
          {formatDate(item.created_at_unix)} · {formatTime(item.duration_ms / 1000)} · seed {item.seed}
        </>
      )}
      audioUrl={songAudioUrl}
      fileName={(item) => songFileName(item.title)}
      actions={(item) =>
        onReuse &&
        item.composition_plan && (
          <Button variant="ghost" size="sm" aria-label={`Edit the plan of ${item.title}`} onClick={() => onReuse(item)}>
            Edit plan
          </Button>
        )
      }
      noun="song"
      loadingText="Loading your songs…"
      emptyText="No songs yet."
      listLabel="Music history"
      className="mt-10"
    />
  );
}
