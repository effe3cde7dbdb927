import { useMutation, useQueryClient, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { cn } from '@/components/cn';
import { ThumbDownIcon, ThumbUpIcon } from '@/components/icons';
import { Tooltip } from '@/components/Tooltip';
import { httpErrorMessage } from '@/lib/api';
import { usePlayerState, usePlayerStore, type PlayerStore } from '@/lib/player';
import { toast } from '@/lib/toast';
import { historyQueryKey, submitFeedback, type FeedbackBody, type HistoryItem, type HistoryPage } from '../api';
import { FeedbackDialog, shouldOpenFeedbackDialog } from './FeedbackDialog';

export const FEEDBACK_THANKS = 'Thank you for your feedback!';

/** Puts new feedback into the history list cache and the player's history item. */
export function applyFeedback(queryClient: QueryClient, player: PlayerStore, id: string, body: FeedbackBody): void {
  const feedback = { ...body, review_status: 'not_reviewed' as const };
  queryClient.setQueryData<InfiniteData<HistoryPage>>(historyQueryKey, (data) =>
    data
      ? {
          ...data,
          pages: data.pages.map((p) => ({
            ...p,
            history: p.history.map((h) => (h.history_item_id === id ? { ...h, feedback } : h)),
          })),
        }
      : data,
  );
  player.updateHistoryItem(id, { feedback });
}

const QUICK_THUMBS_UP: FeedbackBody = {
  thumbs_up: true,
  feedback: '',
  emotions: false,
  inaccurate_clone: false,
  glitches: false,
  audio_quality: false,
  other: false,
};

// Shape and the unpressed colours are separate: cn() only joins classes, so a pressed button
// must not carry the grey text classes (they would win over the pressed colour).
const rowButton =
  'flex size-8 cursor-pointer items-center justify-center rounded-lg disabled:cursor-not-allowed disabled:opacity-40';
const playerButton =
  'flex size-9 shrink-0 cursor-pointer items-center justify-center rounded-full disabled:cursor-not-allowed disabled:opacity-40';
const unpressed =
  'text-gray-600 hover:bg-gray-100 hover:text-gray-900 dark:text-gray-400 dark:hover:bg-gray-800 dark:hover:text-gray-100';
// Pressed: a tinted background and a filled icon, so the state shows without relying on colour alone.
const pressedUp = 'bg-emerald-100 text-emerald-700 dark:bg-emerald-950 dark:text-emerald-300 [&_svg]:fill-current';
const pressedDown = 'bg-red-100 text-red-700 dark:bg-red-950 dark:text-red-300 [&_svg]:fill-current';

interface FeedbackThumbsProps {
  item: HistoryItem;
  variant?: 'row' | 'player';
}

/**
 * Thumbs up/down for a history item (spec §5): the dialog opens after thumbs-up
 * only if the text is at most 400 characters (otherwise the thumbs-up is sent
 * at once); always after thumbs-down. Used in the history list and the player.
 */
export function FeedbackThumbs({ item, variant = 'row' }: FeedbackThumbsProps) {
  const queryClient = useQueryClient();
  const player = usePlayerStore();
  const [dialog, setDialog] = useState<null | boolean>(null);
  const id = item.history_item_id;

  const quickThumbsUp = useMutation({
    mutationFn: (body: FeedbackBody) => submitFeedback(id, body),
    onSuccess: (_, body) => {
      toast.success(FEEDBACK_THANKS);
      applyFeedback(queryClient, player, id, body);
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });

  const thumbs = (up: boolean) => {
    if (shouldOpenFeedbackDialog(up, item.text ?? '')) setDialog(up);
    else quickThumbsUp.mutate(QUICK_THUMBS_UP);
  };

  const fb = item.feedback;
  const button = variant === 'row' ? rowButton : playerButton;
  const size = variant === 'row' ? 15 : 16;
  return (
    <>
      <Tooltip content="Like">
        <button
          type="button"
          className={cn(button, fb?.thumbs_up === true ? pressedUp : unpressed)}
          onClick={() => thumbs(true)}
          disabled={quickThumbsUp.isPending}
          aria-label="Thumbs up"
          aria-pressed={fb?.thumbs_up === true}
        >
          <ThumbUpIcon size={size} />
        </button>
      </Tooltip>
      <Tooltip content="Dislike">
        <button
          type="button"
          className={cn(button, fb?.thumbs_up === false ? pressedDown : unpressed)}
          onClick={() => thumbs(false)}
          aria-label="Thumbs down"
          aria-pressed={fb?.thumbs_up === false}
        >
          <ThumbDownIcon size={size} />
        </button>
      </Tooltip>
      {dialog !== null && (
        <FeedbackDialog
          item={item}
          thumbsUp={dialog}
          open
          onOpenChange={(open) => !open && setDialog(null)}
          onSubmitted={(body) => applyFeedback(queryClient, player, id, body)}
        />
      )}
    </>
  );
}

/**
 * The player's feedback buttons: for the current item once its history item
 * has been fetched. The player decides when they show (3 s or the end).
 */
export function PlayerFeedback() {
  const { historyItem, item } = usePlayerState();
  if (!historyItem || !item || item.historyItemId !== historyItem.history_item_id) return null;
  return <FeedbackThumbs key={historyItem.history_item_id} item={historyItem} variant="player" />;
}
