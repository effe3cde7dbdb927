import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { HistoryPanel, historyQueryKey, type HistoryItem } from '@/features/history';
import { TextToSpeechPage, type EditorDraft } from '@/features/tts';
import { creditsRemaining, subscriptionQueryKey, useSubscription } from '@/features/usage';
import { parseStoredDialogue } from '@/lib/dialogue';
import { useDocumentTitle } from '../useDocumentTitle';

/** Composes the TTS page with the history panel and usage (features stay independent). */
export function TextToSpeechRoute() {
  useDocumentTitle('Text to Speech');
  const { pathname } = useLocation();
  const tab = pathname.replace(/\/$/, '').endsWith('/history') ? 'history' : 'settings';
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const subscription = useSubscription();
  // A history item picked in the panel goes back into the editor (a new object each pick).
  const [draft, setDraft] = useState<EditorDraft | null>(null);
  const open = (item: HistoryItem) =>
    setDraft({
      text: item.text ?? '',
      voiceId: item.voice_id,
      modelId: item.model_id,
      settings: item.settings as EditorDraft['settings'],
      dialogue: parseStoredDialogue(item.dialogue),
    });
  return (
    <TextToSpeechPage
      initialTab={tab}
      onTabChange={(t) =>
        navigate(t === 'history' ? '/app/speech-synthesis/text-to-speech/history' : '/app/speech-synthesis/text-to-speech', {
          replace: true,
        })
      }
      historyPanel={<HistoryPanel onOpen={open} />}
      draft={draft}
      creditsRemaining={creditsRemaining(subscription.data)}
      onGenerated={() => {
        void queryClient.invalidateQueries({ queryKey: historyQueryKey });
        void queryClient.invalidateQueries({ queryKey: subscriptionQueryKey });
      }}
    />
  );
}
