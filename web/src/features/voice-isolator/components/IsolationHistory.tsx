import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/Button';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { ChevronUpIcon, DownloadIcon, PlayIcon, TrashIcon } from '@/components/icons';
import { formatDate, formatTime } from '@/lib/format';
import {
  deleteIsolation,
  HISTORY_PAGE_SIZE,
  isolationAudioUrl,
  isolationHistoryQueryKey,
  listIsolations,
  type IsolationItem,
  type IsolationPage,
} from '../api';
import { errorMessage, isolatedFileName } from '../api/model';
import { WaveformPlayer } from '@/components/player/WaveformPlayer';

const linkButton =
  'inline-flex h-8 items-center gap-1.5 rounded-lg px-3 text-sm font-medium text-gray-700 hover:bg-gray-100 dark:text-gray-300 dark:hover:bg-gray-800';

/** The caller's isolations, newest first: play, download, delete (after a confirmation). */
export function IsolationHistory() {
  const queryClient = useQueryClient();
  const [playing, setPlaying] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<IsolationItem | null>(null);
  const query = useInfiniteQuery({
    queryKey: isolationHistoryQueryKey,
    queryFn: ({ pageParam }) => listIsolations(pageParam),
    initialPageParam: 1,
    getNextPageParam: (last: IsolationPage, pages) => (last.has_more ? pages.length + 1 : undefined),
  });
  const remove = useMutation({
    mutationFn: (item: IsolationItem) => deleteIsolation(item.id),
    onSuccess: (_, item) => {
      setConfirm(null);
      if (playing === item.id) setPlaying(null);
      void queryClient.invalidateQueries({ queryKey: isolationHistoryQueryKey });
    },
  });
  const items = query.data?.pages.flatMap((p) => p.items) ?? [];

  let body;
  if (query.isPending) body = <p className="text-sm text-gray-500">Loading your isolations…</p>;
  else if (query.isError)
    body = (
      <p role="alert" className="text-sm text-red-700 dark:text-red-300">
        {errorMessage(query.error)}
      </p>
    );
  else if (items.length === 0) body = <p className="text-sm text-gray-500">No isolations yet. Upload or record audio to make one.</p>;
  else
    body = (
      <ul aria-label="Isolation history" className="divide-y divide-gray-100 dark:divide-gray-800">
        {items.map((item) => {
          const title = item.title || 'Isolated audio';
          const url = isolationAudioUrl(item);
          const open = playing === item.id;
          return (
            <li key={item.id} data-testid="isolator-history-item" className="py-3">
              <div className="flex flex-wrap items-center gap-2">
                <div className="min-w-0 flex-1">
                  <p className="truncate text-sm font-medium">{title}</p>
                  <p className="text-xs text-gray-500">
                    {formatDate(item.created_at_unix)}
                    {item.duration_seconds != null && ` · ${formatTime(item.duration_seconds)}`}
                  </p>
                </div>
                <Button
                  variant="ghost"
                  size="sm"
                  aria-label={open ? `Hide the player of ${title}` : `Play ${title}`}
                  aria-expanded={open}
                  onClick={() => setPlaying(open ? null : item.id)}
                >
                  {open ? <ChevronUpIcon size={14} /> : <PlayIcon size={14} />}
                  {open ? 'Hide' : 'Play'}
                </Button>
                <a href={url} download={isolatedFileName(title)} className={linkButton} aria-label={`Download ${title}`}>
                  <DownloadIcon size={14} />
                  Download
                </a>
                <Button variant="ghost" size="sm" aria-label={`Delete ${title}`} onClick={() => setConfirm(item)}>
                  <TrashIcon size={14} />
                  Delete
                </Button>
              </div>
              {open && <WaveformPlayer src={url} label={title} testId="isolator-history-player" autoPlay className="mt-2" />}
            </li>
          );
        })}
      </ul>
    );

  return (
    <section aria-labelledby="isolator-history-heading" className="mt-10">
      <h2 id="isolator-history-heading" className="text-lg font-semibold">
        History
      </h2>
      <p className="mb-2 text-xs text-gray-500">The isolated audio is kept; the original upload is not.</p>
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
        title="Delete this isolation?"
        description={
          <>
            &ldquo;{confirm?.title || 'Isolated audio'}&rdquo; and its audio will be deleted for good.
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
