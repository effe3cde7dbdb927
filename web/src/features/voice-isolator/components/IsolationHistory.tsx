import { AudioHistoryList } from '@/components/AudioHistoryList';
import { formatDate, formatTime } from '@/lib/format';
import { deleteIsolation, HISTORY_PAGE_SIZE, isolationAudioUrl, isolationHistoryQueryKey, listIsolations, type IsolationItem } from '../api';
import { errorMessage, isolatedFileName } from '../api/model';

const titleOf = (item: IsolationItem) => item.title || 'Isolated audio';

/** The caller's isolations, newest first: play, download, delete (after a confirmation). */
export function IsolationHistory() {
  return (
    <AudioHistoryList<IsolationItem>
      name="isolator"
      queryKey={isolationHistoryQueryKey}
      list={listIsolations}
      remove={(item) => deleteIsolation(item.id)}
      pageSize={HISTORY_PAGE_SIZE}
      errorMessage={errorMessage}
      idOf={(item) => item.id}
      titleOf={titleOf}
      details={(item) => (
        <>
          {formatDate(item.created_at_unix)}
          {item.duration_seconds != null && ` · ${formatTime(item.duration_seconds)}`}
        </>
      )}
      audioUrl={isolationAudioUrl}
      fileName={(item) => isolatedFileName(titleOf(item))}
      noun="isolation"
      loadingText="Loading your isolations…"
      emptyText="No isolations yet. Upload or record audio to make one."
      listLabel="Isolation history"
      note="The isolated audio is kept; the original upload is not."
      className="mt-10"
    />
  );
}
