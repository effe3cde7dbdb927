import { useNavigate, useParams } from 'react-router';
import { SpeechToTextPage } from '@/features/speech-to-text';
import { useDocumentTitle } from '../useDocumentTitle';

/** The speech-to-text page; the open transcript lives in the URL (/app/speech-to-text/<id>). */
export function SpeechToTextRoute() {
  useDocumentTitle('Speech to Text');
  const { transcriptId } = useParams();
  const navigate = useNavigate();
  return (
    <SpeechToTextPage
      selectedId={transcriptId}
      onSelect={(id) => navigate(id ? `/app/speech-to-text/${encodeURIComponent(id)}` : '/app/speech-to-text')}
    />
  );
}
