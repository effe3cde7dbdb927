import { useInfiniteQuery, useMutation, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/Button';
import { cn } from '@/components/cn';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { DialogueLines } from '@/components/DialogueLines';
import {
  DownloadIcon,
  PauseIcon,
  PlayIcon,
  ShareIcon,
  TrashIcon,
  UsersIcon,
} from '@/components/icons';
import { Spinner } from '@/components/Spinner';
import { Tooltip } from '@/components/Tooltip';
import { httpErrorMessage } from '@/lib/api';
import { parseStoredDialogue } from '@/lib/dialogue';
import { saveBlob } from '@/lib/download';
import { formatDate, formatNumber, truncate } from '@/lib/format';
import { usePlayerState, usePlayerStore } from '@/lib/player';
import { toast } from '@/lib/toast';
import {
  deleteHistoryItem,
  downloadHistoryItem,
  getHistory,
  historyAudioUrl,
  historyQueryKey,
  type HistoryItem,
  type HistoryPage,
} from '../api';
import { FeedbackThumbs } from './FeedbackThumbs';
import { ShareDialog } from './ShareDialog';
import { ShareWithPeopleDialog } from './ShareWithPeopleDialog';

const rowButton =
  'flex size-8 cursor-pointer items-center justify-center rounded-lg text-gray-600 hover:bg-gray-100 hover:text-gray-900 disabled:cursor-not-allowed disabled:opacity-40 dark:text-gray-400 dark:hover:bg-gray-800 dark:hover:text-gray-100';

function HistoryRow({
  item,
  onDelete,
  onOpen,
}: {
  item: HistoryItem;
  onDelete: (item: HistoryItem) => void;
  onOpen?: (item: HistoryItem) => void;
}) {
  const player = usePlayerStore();
  const playerState = usePlayerState();
  const [shareOpen, setShareOpen] = useState(false);
  const [peopleOpen, setPeopleOpen] = useState(false);
  const [downloading, setDownloading] = useState(false);
  const isCurrent = playerState.item?.historyItemId === item.history_item_id;
  const isPlaying = isCurrent && playerState.status === 'playing';
  const credits = Math.abs(item.character_count_change_to - item.character_count_change_from);
  // A text-to-dialogue item has its lines in `dialogue` and an empty `text`.
  const dialogue = parseStoredDialogue(item.dialogue);
  const text = item.text || dialogue.map((l) => l.text).join(' ');

  const play = () => {
    if (isCurrent) return player.toggle();
    player.load({
      id: item.history_item_id,
      src: historyAudioUrl(item.history_item_id),
      type: 'speechHistoryItem',
      title: truncate(text.replace(/\s+/g, ' ').trim() || 'Untitled', 100),
      voiceName: item.voice_name ?? undefined,
      voiceId: item.voice_id ?? undefined,
      historyItemId: item.history_item_id,
      text,
      outputFormat: item.output_format ?? undefined,
      autoStart: true,
    });
  };

  const download = async () => {
    setDownloading(true);
    try {
      const { blob, fileName } = await downloadHistoryItem(item);
      saveBlob(blob, fileName);
    } catch (err) {
      toast.error(httpErrorMessage(err));
    } finally {
      setDownloading(false);
    }
  };

  return (
    <li
      data-testid="history-item"
      className={cn(
        'group border-b border-gray-100 px-4 py-3 sm:px-6 dark:border-gray-800/80',
        isCurrent && 'bg-gray-50 dark:bg-gray-900/60',
      )}
    >
      <div className="flex items-start gap-3">
        <button
          type="button"
          onClick={play}
          aria-label={isPlaying ? 'Pause' : `Play: ${truncate(text, 40)}`}
          className="mt-0.5 flex size-8 shrink-0 cursor-pointer items-center justify-center rounded-full bg-gray-900 text-white hover:bg-gray-700 dark:bg-white dark:text-gray-900"
        >
          {isPlaying ? <PauseIcon size={12} /> : <PlayIcon size={12} />}
        </button>
        <div className="min-w-0 flex-1">
          {dialogue.length > 0 ? (
            <>
              <DialogueLines lines={dialogue} />
              {onOpen && (
                <button
                  type="button"
                  onClick={() => onOpen(item)}
                  className="mt-1 cursor-pointer text-xs text-gray-600 hover:underline dark:text-gray-400"
                >
                  Load this dialogue into the editor
                </button>
              )}
            </>
          ) : onOpen ? (
            <button
              type="button"
              onClick={() => onOpen(item)}
              title="Load this text, voice and settings into the editor"
              className="line-clamp-2 cursor-pointer text-left text-sm text-gray-900 hover:underline dark:text-gray-100"
            >
              <span className="sr-only">Load into the editor: </span>
              {text || 'Untitled'}
            </button>
          ) : (
            <p className="line-clamp-2 text-sm text-gray-900 dark:text-gray-100">{text || 'Untitled'}</p>
          )}
          <p className="mt-1 text-xs text-gray-500">
            {[item.voice_name, formatDate(item.date_unix), `${formatNumber(credits)} credits`]
              .filter(Boolean)
              .join(' · ')}
          </p>
        </div>
      </div>
      <div className="mt-2 flex items-center gap-0.5 pl-11">
        <FeedbackThumbs item={item} />
        <span className="mx-1 h-4 w-px bg-gray-200 dark:bg-gray-700" aria-hidden="true" />
        <Tooltip content="Download">
          <button
            type="button"
            className={rowButton}
            onClick={() => void download()}
            disabled={downloading}
            aria-label="Download"
          >
            {downloading ? <Spinner /> : <DownloadIcon size={15} />}
          </button>
        </Tooltip>
        <Tooltip content="Share">
          <button type="button" className={rowButton} onClick={() => setShareOpen(true)} aria-label="Share">
            <ShareIcon size={15} />
          </button>
        </Tooltip>
        <Tooltip content="Share with people">
          <button type="button" className={rowButton} onClick={() => setPeopleOpen(true)} aria-label="Share with people">
            <UsersIcon size={15} />
          </button>
        </Tooltip>
        <Tooltip content="Delete">
          <button
            type="button"
            className={cn(rowButton, 'hover:text-red-600 dark:hover:text-red-400')}
            onClick={() => onDelete(item)}
            aria-label="Delete"
          >
            <TrashIcon size={15} />
          </button>
        </Tooltip>
      </div>
      {shareOpen && <ShareDialog historyItemId={item.history_item_id} open onOpenChange={setShareOpen} />}
      {peopleOpen && <ShareWithPeopleDialog historyItemId={item.history_item_id} open onOpenChange={setPeopleOpen} />}
    </li>
  );
}

/** History list: paginated (load more); play, download, feedback, share, delete; open in the editor. */
export function HistoryPanel({ onOpen }: { onOpen?: (item: HistoryItem) => void } = {}) {
  const queryClient = useQueryClient();
  const player = usePlayerStore();
  const [toDelete, setToDelete] = useState<HistoryItem | null>(null);
  const query = useInfiniteQuery({
    queryKey: historyQueryKey,
    queryFn: ({ pageParam }) => getHistory(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.has_more && last.last_history_item_id ? last.last_history_item_id : undefined),
  });

  const remove = useMutation({
    mutationFn: (item: HistoryItem) => deleteHistoryItem(item.history_item_id),
    onSuccess: (_, item) => {
      if (player.getState().item?.historyItemId === item.history_item_id) player.clear();
      queryClient.setQueryData<InfiniteData<HistoryPage>>(historyQueryKey, (data) =>
        data
          ? {
              ...data,
              pages: data.pages.map((p) => ({
                ...p,
                history: p.history.filter((h) => h.history_item_id !== item.history_item_id),
              })),
            }
          : data,
      );
      toast.success('Deleted from history.');
      setToDelete(null);
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });

  const items = query.data?.pages.flatMap((p) => p.history) ?? [];

  return (
    <div>
      {query.isPending && (
        <div className="flex items-center gap-2 p-6 text-sm text-gray-500">
          <Spinner /> Loading history…
        </div>
      )}
      {query.isError && (
        <p role="alert" className="p-6 text-sm text-red-600 dark:text-red-400">
          {httpErrorMessage(query.error)}
        </p>
      )}
      {query.isSuccess && items.length === 0 && (
        <p className="p-6 text-sm text-gray-500">Nothing here yet. Generated speech will show up in your history.</p>
      )}
      <ul aria-label="History">
        {items.map((item) => (
          <HistoryRow key={item.history_item_id} item={item} onDelete={setToDelete} onOpen={onOpen} />
        ))}
      </ul>
      {query.hasNextPage && (
        <div className="p-4 text-center">
          <Button variant="outline" size="sm" onClick={() => void query.fetchNextPage()} loading={query.isFetchingNextPage}>
            Load more
          </Button>
        </div>
      )}
      <ConfirmDialog
        open={toDelete !== null}
        onOpenChange={(open) => !open && setToDelete(null)}
        title="Delete this generation?"
        description="The audio and its history entry will be removed. This cannot be undone."
        confirmLabel="Delete"
        loading={remove.isPending}
        onConfirm={() => toDelete && remove.mutate(toDelete)}
      />
    </div>
  );
}
