import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/Button';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { ChevronUpIcon, DownloadIcon, PlayIcon, TrashIcon } from '@/components/icons';
import { formatDate, formatTime } from '@/lib/format';
import {
  deleteSound,
  errorMessage,
  extensionOf,
  HISTORY_PAGE_SIZE,
  listSounds,
  soundFileName,
  soundHistoryQueryKey,
  type SoundItem,
  type SoundPage,
} from '../api';

const linkButton =
  'inline-flex h-8 items-center gap-1.5 rounded-lg px-3 text-sm font-medium text-gray-700 hover:bg-gray-100 dark:text-gray-300 dark:hover:bg-gray-800';

/** The caller's sound effects, newest first: play, download, delete (after a confirmation). */
export function SoundHistory() {
  const queryClient = useQueryClient();
  const [playing, setPlaying] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<SoundItem | null>(null);
  const query = useInfiniteQuery({
    queryKey: soundHistoryQueryKey,
    queryFn: ({ pageParam }) => listSounds(pageParam),
    initialPageParam: 1,
    getNextPageParam: (last: SoundPage, pages) => (last.has_more ? pages.length + 1 : undefined),
  });
  const remove = useMutation({
    mutationFn: (item: SoundItem) => deleteSound(item.sound_generation_history_item_id),
    onSuccess: (_, item) => {
      setConfirm(null);
      if (playing === item.sound_generation_history_item_id) setPlaying(null);
      void queryClient.invalidateQueries({ queryKey: soundHistoryQueryKey });
    },
  });
  const items = query.data?.pages.flatMap((p) => p.items) ?? [];

  let body;
  if (query.isPending) body = <p className="text-sm text-gray-500">Loading your sound effects…</p>;
  else if (query.isError)
    body = (
      <p role="alert" className="text-sm text-red-700 dark:text-red-300">
        {errorMessage(query.error)}
      </p>
    );
  else if (items.length === 0) body = <p className="text-sm text-gray-500">No sound effects yet. Generate one to see it here.</p>;
  else
    body = (
      <ul aria-label="Sound effect history" className="divide-y divide-gray-100 dark:divide-gray-800">
        {items.map((item) => {
          const id = item.sound_generation_history_item_id;
          const open = playing === id;
          const s = item.settings;
          return (
            <li key={id} data-testid="sfx-history-item" className="py-3">
              <div className="flex flex-wrap items-center gap-2">
                <div className="min-w-0 flex-1">
                  <p className="truncate text-sm font-medium">{item.text}</p>
                  <p className="text-xs text-gray-500">
                    {formatDate(item.created_at_unix)} · {formatTime(item.duration_seconds)}
                    {s.loop ? ' · loop' : ''} · {s.recipes.join(', ') || s.engine} · seed {s.seed}
                  </p>
                </div>
                <Button
                  variant="ghost"
                  size="sm"
                  aria-label={open ? `Hide the player of ${item.text}` : `Play ${item.text}`}
                  aria-expanded={open}
                  onClick={() => setPlaying(open ? null : id)}
                >
                  {open ? <ChevronUpIcon size={14} /> : <PlayIcon size={14} />}
                  {open ? 'Hide' : 'Play'}
                </Button>
                <a
                  href={item.download_url}
                  download={soundFileName(item.text, extensionOf(item.format))}
                  className={linkButton}
                  aria-label={`Download ${item.text}`}
                >
                  <DownloadIcon size={14} />
                  Download
                </a>
                <Button variant="ghost" size="sm" aria-label={`Delete ${item.text}`} onClick={() => setConfirm(item)}>
                  <TrashIcon size={14} />
                  Delete
                </Button>
              </div>
              {open && <audio controls autoPlay loop={s.loop} src={item.download_url} className="mt-2 w-full" aria-label={`Player of ${item.text}`} />}
            </li>
          );
        })}
      </ul>
    );

  return (
    <section aria-labelledby="sfx-history-heading">
      <h2 id="sfx-history-heading" className="text-lg font-semibold">
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
        title="Delete this sound effect?"
        description={
          <>
            &ldquo;{confirm?.text}&rdquo; and its audio will be deleted for good.
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
