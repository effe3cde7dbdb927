import { useInfiniteQuery } from '@tanstack/react-query';
import { Button } from '@/components/Button';
import { cn } from '@/components/cn';
import { httpErrorMessage } from '@/lib/api';
import { formatDate, formatTime } from '@/lib/format';
import { listTranscripts, transcriptsQueryKey, type TranscriptSummary } from '../api';

/** How often the list refreshes while a transcript in it is still processing (ms). */
const PROCESSING_POLL_MS = 3000;

function StateBadge({ state }: { state: TranscriptSummary['state'] }) {
  if (state === 'completed') return null;
  return (
    <span
      className={cn(
        'rounded-full px-2 py-0.5 text-xs',
        state === 'processing' ? 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200' : 'bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200',
      )}
    >
      {state === 'processing' ? 'Transcribing' : 'Failed'}
    </span>
  );
}

/** The workspace's transcripts, newest first, a page at a time. */
export function TranscriptList({ selectedId, onSelect }: { selectedId?: string; onSelect: (id: string) => void }) {
  const query = useInfiniteQuery({
    queryKey: transcriptsQueryKey,
    queryFn: ({ pageParam }) => listTranscripts(pageParam),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    refetchInterval: (q) =>
      q.state.data?.pages.some((p) => p.transcripts.some((t) => t.state === 'processing')) ? PROCESSING_POLL_MS : false,
  });
  const items = query.data?.pages.flatMap((p) => p.transcripts) ?? [];

  if (query.isPending) return <p className="text-sm text-gray-500">Loading transcripts…</p>;
  if (query.isError)
    return (
      <p role="alert" className="text-sm text-red-700 dark:text-red-300">
        {httpErrorMessage(query.error)}
      </p>
    );
  if (items.length === 0) return <p className="text-sm text-gray-500">No transcripts yet. Upload a file to make one.</p>;
  return (
    <div>
      <ul aria-label="Transcripts" className="divide-y divide-gray-100 dark:divide-gray-800">
        {items.map((t) => (
          <li key={t.transcription_id}>
            <button
              type="button"
              data-testid="stt-transcript-row"
              onClick={() => onSelect(t.transcription_id)}
              aria-current={t.transcription_id === selectedId ? 'true' : undefined}
              className={cn(
                'w-full cursor-pointer rounded-lg px-3 py-2 text-left hover:bg-gray-50 dark:hover:bg-gray-900',
                t.transcription_id === selectedId && 'bg-gray-100 dark:bg-gray-800',
              )}
            >
              <span className="flex items-center justify-between gap-2">
                <span className="truncate text-sm font-medium">{t.file_name || 'Untitled audio'}</span>
                <StateBadge state={t.state} />
              </span>
              <span className="block text-xs text-gray-500">
                {formatDate(t.created_at_unix)} · {formatTime(t.audio_duration_secs)}
                {t.language_code ? ` · ${t.language_code}` : ''}
              </span>
              {t.preview && <span className="mt-0.5 line-clamp-2 block text-xs text-gray-600 dark:text-gray-400">{t.preview}</span>}
            </button>
          </li>
        ))}
      </ul>
      {query.hasNextPage && (
        <Button variant="ghost" size="sm" className="mt-2" loading={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
          Load more
        </Button>
      )}
    </div>
  );
}
