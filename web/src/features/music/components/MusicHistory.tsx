import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/Button';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { ChevronUpIcon, DownloadIcon, PlayIcon, TrashIcon } from '@/components/icons';
import { WaveformPlayer } from '@/components/player/WaveformPlayer';
import { formatDate, formatTime } from '@/lib/format';
import { deleteSong, errorMessage, HISTORY_PAGE_SIZE, listSongs, musicHistoryQueryKey, songAudioUrl, songFileName, type SongItem, type SongPage } from '../api';

const linkButton =
  'inline-flex h-8 items-center gap-1.5 rounded-lg px-3 text-sm font-medium text-gray-700 hover:bg-gray-100 dark:text-gray-300 dark:hover:bg-gray-800';

/** The caller's songs, newest first: play, download, reuse the plan and seed, delete. */
export function MusicHistory({ onReuse }: { onReuse?: (item: SongItem) => void }) {
  const queryClient = useQueryClient();
  const [playing, setPlaying] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<SongItem | null>(null);
  const query = useInfiniteQuery({
    queryKey: musicHistoryQueryKey,
    queryFn: ({ pageParam }) => listSongs(pageParam),
    initialPageParam: 1,
    getNextPageParam: (last: SongPage, pages) => (last.has_more ? pages.length + 1 : undefined),
  });
  const remove = useMutation({
    mutationFn: (item: SongItem) => deleteSong(item.song_id),
    onSuccess: (_, item) => {
      setConfirm(null);
      if (playing === item.song_id) setPlaying(null);
      void queryClient.invalidateQueries({ queryKey: musicHistoryQueryKey });
    },
  });
  const items = query.data?.pages.flatMap((p) => p.items) ?? [];

  let body;
  if (query.isPending) body = <p className="text-sm text-gray-500">Loading your songs…</p>;
  else if (query.isError)
    body = (
      <p role="alert" className="text-sm text-red-700 dark:text-red-300">
        {errorMessage(query.error)}
      </p>
    );
  else if (items.length === 0) body = <p className="text-sm text-gray-500">No songs yet.</p>;
  else
    body = (
      <ul aria-label="Music history" className="divide-y divide-gray-100 dark:divide-gray-800">
        {items.map((item) => {
          const url = songAudioUrl(item);
          const open = playing === item.song_id;
          return (
            <li key={item.song_id} data-testid="music-history-item" className="py-3">
              <div className="flex flex-wrap items-center gap-2">
                <div className="min-w-0 flex-1">
                  <p className="truncate text-sm font-medium">{item.title}</p>
                  <p className="text-xs text-gray-500">
                    {formatDate(item.created_at_unix)} · {formatTime(item.duration_ms / 1000)} · seed {item.seed}
                  </p>
                </div>
                <Button variant="ghost" size="sm" aria-label={open ? `Hide the player of ${item.title}` : `Play ${item.title}`} aria-expanded={open} onClick={() => setPlaying(open ? null : item.song_id)}>
                  {open ? <ChevronUpIcon size={14} /> : <PlayIcon size={14} />}
                  {open ? 'Hide' : 'Play'}
                </Button>
                <a href={url} download={songFileName(item.title)} className={linkButton} aria-label={`Download ${item.title}`}>
                  <DownloadIcon size={14} />
                  Download
                </a>
                {onReuse && item.composition_plan && (
                  <Button variant="ghost" size="sm" aria-label={`Edit the plan of ${item.title}`} onClick={() => onReuse(item)}>
                    Edit plan
                  </Button>
                )}
                <Button variant="ghost" size="sm" aria-label={`Delete ${item.title}`} onClick={() => setConfirm(item)}>
                  <TrashIcon size={14} />
                  Delete
                </Button>
              </div>
              {open && <WaveformPlayer src={url} label={item.title} testId="music-history-player" autoPlay className="mt-2" />}
            </li>
          );
        })}
      </ul>
    );

  return (
    <section aria-labelledby="music-history-heading" className="mt-10">
      <h2 id="music-history-heading" className="text-lg font-semibold">
        History
      </h2>
      {body}
      {query.hasNextPage && (
        <Button variant="ghost" size="sm" className="mt-2" loading={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
          Load {HISTORY_PAGE_SIZE} more
        </Button>
      )}
      <ConfirmDialog
        open={confirm !== null}
        onOpenChange={(o) => {
          if (!o) {
            setConfirm(null);
            remove.reset();
          }
        }}
        title="Delete this song?"
        description={
          <>
            &ldquo;{confirm?.title}&rdquo; and its audio will be deleted for good.
            {remove.isError && (
              <span role="alert" className="mt-2 block text-red-700 dark:text-red-300">
                {errorMessage(remove.error)}
              </span>
            )}
          </>
        }
        confirmLabel="Delete"
        loading={remove.isPending}
        onConfirm={() => confirm && remove.mutate(confirm)}
      />
    </section>
  );
}
