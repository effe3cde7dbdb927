import { useInfiniteQuery, useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Button } from '@/components/Button';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { ChevronUpIcon, DownloadIcon, PlayIcon, TrashIcon } from '@/components/icons';
import { WaveformPlayer } from '@/components/player/WaveformPlayer';

const linkButton =
  'inline-flex h-8 items-center gap-1.5 rounded-lg px-3 text-sm font-medium text-gray-700 hover:bg-gray-100 dark:text-gray-300 dark:hover:bg-gray-800';

/** One page of a kept-audio history (isolations, sound effects, songs: the server's shape). */
export interface AudioHistoryPage<T> {
  items: T[];
  has_more: boolean;
}

export interface AudioHistoryListProps<T> {
  /** Prefix of the section's ids and test ids (`${name}-history-item`, `${name}-history-player`). */
  name: string;
  queryKey: QueryKey;
  list: (page: number) => Promise<AudioHistoryPage<T>>;
  remove: (item: T) => Promise<unknown>;
  pageSize: number;
  errorMessage: (err: unknown) => string;
  idOf: (item: T) => string;
  titleOf: (item: T) => string;
  /** The line under the title: date, length and what else describes the item. */
  details: (item: T) => ReactNode;
  audioUrl: (item: T) => string;
  fileName: (item: T) => string;
  /** The player shown under an opened item; default a waveform player. */
  player?: (item: T, url: string, title: string) => ReactNode;
  /** Buttons of the feature's own, between Download and Delete. */
  actions?: (item: T) => ReactNode;
  /** The item's noun in the delete confirmation: "Delete this song?". */
  noun: string;
  loadingText: string;
  emptyText: string;
  listLabel: string;
  note?: string;
  className?: string;
}

/** A feature's kept audio, newest first: play, download, delete (after a confirmation), and load more. */
export function AudioHistoryList<T>(p: AudioHistoryListProps<T>) {
  const queryClient = useQueryClient();
  const [playing, setPlaying] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<T | null>(null);
  const query = useInfiniteQuery({
    queryKey: p.queryKey,
    queryFn: ({ pageParam }) => p.list(pageParam),
    initialPageParam: 1,
    getNextPageParam: (last: AudioHistoryPage<T>, pages) => (last.has_more ? pages.length + 1 : undefined),
  });
  const remove = useMutation({
    mutationFn: (item: T) => p.remove(item),
    onSuccess: (_, item) => {
      setConfirm(null);
      if (playing === p.idOf(item)) setPlaying(null);
      void queryClient.invalidateQueries({ queryKey: p.queryKey });
    },
  });
  const items = query.data?.pages.flatMap((page) => page.items) ?? [];

  let body;
  if (query.isPending) body = <p className="text-sm text-gray-500">{p.loadingText}</p>;
  else if (query.isError)
    body = (
      <p role="alert" className="text-sm text-red-700 dark:text-red-300">
        {p.errorMessage(query.error)}
      </p>
    );
  else if (items.length === 0) body = <p className="text-sm text-gray-500">{p.emptyText}</p>;
  else
    body = (
      <ul aria-label={p.listLabel} className="divide-y divide-gray-100 dark:divide-gray-800">
        {items.map((item) => {
          const id = p.idOf(item);
          const title = p.titleOf(item);
          const url = p.audioUrl(item);
          const open = playing === id;
          return (
            <li key={id} data-testid={`${p.name}-history-item`} className="py-3">
              <div className="flex flex-wrap items-center gap-2">
                <div className="min-w-0 flex-1">
                  <p className="truncate text-sm font-medium">{title}</p>
                  <p className="text-xs text-gray-500">{p.details(item)}</p>
                </div>
                <Button
                  variant="ghost"
                  size="sm"
                  aria-label={open ? `Hide the player of ${title}` : `Play ${title}`}
                  aria-expanded={open}
                  onClick={() => setPlaying(open ? null : id)}
                >
                  {open ? <ChevronUpIcon size={14} /> : <PlayIcon size={14} />}
                  {open ? 'Hide' : 'Play'}
                </Button>
                <a href={url} download={p.fileName(item)} className={linkButton} aria-label={`Download ${title}`}>
                  <DownloadIcon size={14} />
                  Download
                </a>
                {p.actions?.(item)}
                <Button variant="ghost" size="sm" aria-label={`Delete ${title}`} onClick={() => setConfirm(item)}>
                  <TrashIcon size={14} />
                  Delete
                </Button>
              </div>
              {open &&
                (p.player ? (
                  p.player(item, url, title)
                ) : (
                  <WaveformPlayer src={url} label={title} testId={`${p.name}-history-player`} autoPlay className="mt-2" />
                ))}
            </li>
          );
        })}
      </ul>
    );

  return (
    <section aria-labelledby={`${p.name}-history-heading`} className={p.className}>
      <h2 id={`${p.name}-history-heading`} className="text-lg font-semibold">
        History
      </h2>
      {p.note && <p className="mb-2 text-xs text-gray-500">{p.note}</p>}
      {body}
      {query.hasNextPage && (
        <Button variant="ghost" size="sm" className="mt-2" loading={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
          Load {p.pageSize} more
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
        title={`Delete this ${p.noun}?`}
        description={
          <>
            &ldquo;{confirm !== null ? p.titleOf(confirm) : ''}&rdquo; and its audio will be deleted for good.
            {remove.isError && (
              <span role="alert" className="mt-2 block text-red-700 dark:text-red-300">
                {p.errorMessage(remove.error)}
              </span>
            )}
          </>
        }
        confirmLabel="Delete"
        loading={remove.isPending}
        onConfirm={() => confirm !== null && remove.mutate(confirm)}
      />
    </section>
  );
}
