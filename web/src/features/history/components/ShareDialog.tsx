import { useQuery } from '@tanstack/react-query';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { CopyIcon } from '@/components/icons';
import { Spinner } from '@/components/Spinner';
import { httpErrorMessage } from '@/lib/api';
import { MESSAGES, SHARE_LINK_DISPLAY_LENGTH } from '@/lib/constants';
import { truncate } from '@/lib/format';
import { toast } from '@/lib/toast';
import { getShareLink } from '../api';

/** Copies text to the clipboard, falling back to a hidden textarea. */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.appendChild(ta);
  ta.select();
  const ok = document.execCommand?.('copy');
  ta.remove();
  if (!ok) throw new Error('copy failed');
}

interface ShareDialogProps {
  historyItemId: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/** "Share with your community" modal (bottom sheet on mobile). */
export function ShareDialog({ historyItemId, open, onOpenChange }: ShareDialogProps) {
  const query = useQuery({
    queryKey: ['history', 'share-link', historyItemId],
    queryFn: () => getShareLink(historyItemId),
    enabled: open,
    staleTime: Infinity,
    retry: false,
  });
  const link = query.data?.share_link;

  const copy = async () => {
    if (!link) return;
    try {
      await copyText(link);
      toast.success(MESSAGES.shareCopied);
    } catch {
      toast.error('Could not copy the link. Please copy it manually.');
    }
  };

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={MESSAGES.shareTitle}
      description="Anyone with this link can listen to this audio, without signing in."
      sheetOnMobile
    >
      {query.isPending && (
        <div className="flex items-center gap-2 text-sm text-gray-500">
          <Spinner /> Creating share link…
        </div>
      )}
      {query.isError && (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400">
          {httpErrorMessage(query.error)}
        </p>
      )}
      {link && (
        <div className="flex items-center gap-2 rounded-xl border border-gray-200 bg-gray-50 p-2 pl-3 dark:border-gray-700 dark:bg-gray-950">
          <a
            href={link}
            target="_blank"
            rel="noreferrer"
            title={link}
            data-testid="share-link"
            className="min-w-0 flex-1 truncate font-mono text-sm text-gray-800 hover:underline dark:text-gray-200"
          >
            {truncate(link, SHARE_LINK_DISPLAY_LENGTH)}
          </a>
          <Button size="sm" onClick={() => void copy()}>
            <CopyIcon size={14} /> Copy link
          </Button>
        </div>
      )}
      {query.data?.public_user_name && (
        <p className="mt-3 text-xs text-gray-500">Shared as {query.data.public_user_name}</p>
      )}
    </Dialog>
  );
}
