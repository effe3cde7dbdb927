import { useQueryClient } from '@tanstack/react-query';
import { useLocation, useNavigate } from 'react-router';
import { HistoryPanel, historyQueryKey } from '@/features/history';
import { TextToSpeechPage } from '@/features/tts';
import { creditsRemaining, subscriptionQueryKey, useSubscription } from '@/features/usage';
import { useDocumentTitle } from '../useDocumentTitle';

/** Composes the TTS page with the history panel and usage (features stay independent). */
export function TextToSpeechRoute() {
  useDocumentTitle('Text to Speech');
  const { pathname } = useLocation();
  const tab = pathname.replace(/\/$/, '').endsWith('/history') ? 'history' : 'settings';
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const subscription = useSubscription();
  return (
    <TextToSpeechPage
      initialTab={tab}
      onTabChange={(t) =>
        navigate(t === 'history' ? '/app/speech-synthesis/text-to-speech/history' : '/app/speech-synthesis/text-to-speech', {
          replace: true,
        })
      }
      historyPanel={<HistoryPanel />}
      creditsRemaining={creditsRemaining(subscription.data)}
      onGenerated={() => {
        void queryClient.invalidateQueries({ queryKey: historyQueryKey });
        void queryClient.invalidateQueries({ queryKey: subscriptionQueryKey });
      }}
    />
  );
}
