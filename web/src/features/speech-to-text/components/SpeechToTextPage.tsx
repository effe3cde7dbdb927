import { useQueryClient } from '@tanstack/react-query';
import { transcriptQueryKey, transcriptsQueryKey, type Transcription } from '../api';
import { TranscriptList } from './TranscriptList';
import { TranscriptViewer } from './TranscriptViewer';
import { UploadPanel } from './UploadPanel';

/**
 * Speech to text: upload (or drop) audio, the workspace's transcripts, and the chosen one.
 * The route owns which transcript is open (selectedId, onSelect), so it can live in the URL.
 */
export function SpeechToTextPage({ selectedId, onSelect }: { selectedId?: string; onSelect: (id: string | undefined) => void }) {
  const queryClient = useQueryClient();
  const transcribed = (t: Transcription) => {
    void queryClient.invalidateQueries({ queryKey: transcriptsQueryKey, exact: true });
    if (t.transcription_id) {
      void queryClient.invalidateQueries({ queryKey: transcriptQueryKey(t.transcription_id) });
      onSelect(t.transcription_id);
    }
  };
  return (
    <div className="flex min-h-full flex-col lg:h-[calc(100dvh-var(--player-offset,0px))] lg:min-h-0 lg:flex-row">
      <aside className="w-full shrink-0 space-y-4 border-gray-200 p-4 sm:p-6 lg:w-96 lg:overflow-y-auto lg:border-r dark:border-gray-800">
        <h1 className="text-xl font-semibold tracking-tight">Speech to Text</h1>
        <UploadPanel onTranscribed={transcribed} />
        <TranscriptList selectedId={selectedId} onSelect={onSelect} />
      </aside>
      <section className="flex-1 p-4 sm:p-6 lg:overflow-y-auto">
        {selectedId ? (
          <TranscriptViewer key={selectedId} id={selectedId} onDeleted={() => onSelect(undefined)} />
        ) : (
          <p className="text-sm text-gray-500">Choose a transcript, or upload audio to make one.</p>
        )}
      </section>
    </div>
  );
}
