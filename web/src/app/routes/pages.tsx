import { useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { AiClassifierPage } from '@/features/ai-classifier';
import { ApiKeysPage } from '@/features/api-keys';
import {
  EmailActionPage,
  ForgotPasswordPage,
  ResetPasswordPage,
  SignInPage,
  SignUpPage,
} from '@/features/auth';
import { MailboxPage } from '@/features/dev-mailbox';
import { PrivacyPage, TermsPage } from '@/features/legal';
import { PronunciationDictionariesPage } from '@/features/pronunciation-dictionaries';
import { SharePage } from '@/features/share';
import { SoundEffectsPage, type SoundEffectsTab } from '@/features/sound-effects';
import { subscriptionQueryKey, UsagePage } from '@/features/usage';
import { SpeechToSpeechPage } from '@/features/speech-to-speech';
import { VoiceDesignPage } from '@/features/voice-design';
import { VoiceLibraryPage } from '@/features/voice-library';
import { MusicPage } from '@/features/music';
import { VoiceIsolatorPage } from '@/features/voice-isolator';
import { ProfessionalClonePage, VoiceLabPage, VoicePage } from '@/features/voice-lab';
import { useDocumentTitle } from '../useDocumentTitle';

export function SignInRoute() {
  useDocumentTitle('Sign in');
  return <SignInPage />;
}
export function SignUpRoute() {
  useDocumentTitle('Sign up');
  return <SignUpPage />;
}
export function ForgotPasswordRoute() {
  useDocumentTitle('Forgot password');
  return <ForgotPasswordPage />;
}
export function ResetPasswordRoute() {
  useDocumentTitle('Reset password');
  return <ResetPasswordPage />;
}
export function EmailActionRoute() {
  useDocumentTitle('Email action');
  return <EmailActionPage />;
}
export function MailboxRoute() {
  useDocumentTitle('Development mailbox');
  return <MailboxPage />;
}
export function ShareRoute() {
  const { token = '' } = useParams();
  useDocumentTitle('Shared audio');
  return <SharePage token={token} />;
}
export function ApiKeysRoute() {
  useDocumentTitle('API keys');
  return <ApiKeysPage />;
}
export function UsageRoute({ workspace = false }: { workspace?: boolean }) {
  useDocumentTitle(workspace ? 'Workspace usage' : 'Usage');
  return <UsagePage workspace={workspace} />;
}
export function TermsRoute() {
  useDocumentTitle('Terms of Service');
  return <TermsPage />;
}
export function PrivacyRoute() {
  useDocumentTitle('Privacy Policy');
  return <PrivacyPage />;
}
export function AiClassifierRoute() {
  useDocumentTitle('AI Speech Classifier');
  return <AiClassifierPage />;
}
export function PronunciationDictionariesRoute() {
  useDocumentTitle('Pronunciation dictionaries');
  return <PronunciationDictionariesPage />;
}
export function VoiceIsolatorRoute() {
  useDocumentTitle('Voice Isolator');
  const queryClient = useQueryClient();
  // An isolation is charged: the credits in the sidebar's usage meter change.
  return <VoiceIsolatorPage onIsolated={() => void queryClient.invalidateQueries({ queryKey: subscriptionQueryKey })} />;
}
const SOUND_EFFECTS_TITLES: Record<SoundEffectsTab, string> = {
  generate: 'Sound Effects',
  explore: 'Explore sound effects',
  history: 'Sound effect history',
};
export function SoundEffectsRoute({ tab }: { tab: SoundEffectsTab }) {
  useDocumentTitle(SOUND_EFFECTS_TITLES[tab]);
  const queryClient = useQueryClient();
  // Sound effects are charged: the credits in the sidebar's usage meter change.
  return <SoundEffectsPage tab={tab} onGenerated={() => void queryClient.invalidateQueries({ queryKey: subscriptionQueryKey })} />;
}

export function MusicRoute() {
  useDocumentTitle('Music');
  const queryClient = useQueryClient();
  // A song is charged: the credits in the sidebar's usage meter change.
  return <MusicPage onComposed={() => void queryClient.invalidateQueries({ queryKey: subscriptionQueryKey })} />;
}
export function SpeechToSpeechRoute() {
  useDocumentTitle('Speech to Speech');
  const queryClient = useQueryClient();
  // A conversion is charged: the credits in the sidebar's usage meter change.
  return <SpeechToSpeechPage onConverted={() => void queryClient.invalidateQueries({ queryKey: subscriptionQueryKey })} />;
}

export function VoiceLabRoute() {
  useDocumentTitle('Voice lab');
  const queryClient = useQueryClient();
  // Voices take slots and count as adds/edits: the subscription's voice fields change.
  return <VoiceLabPage onChanged={() => void queryClient.invalidateQueries({ queryKey: subscriptionQueryKey })} />;
}
export function ProfessionalCloneRoute() {
  useDocumentTitle('Professional voice clone');
  return <ProfessionalClonePage />;
}
export function VoiceRoute() {
  const { voiceId = '' } = useParams();
  useDocumentTitle('Voice');
  const queryClient = useQueryClient();
  return <VoicePage voiceId={voiceId} onChanged={() => void queryClient.invalidateQueries({ queryKey: subscriptionQueryKey })} />;
}
export function VoiceLibraryRoute() {
  useDocumentTitle('Voice library');
  const queryClient = useQueryClient();
  // A copy takes a voice slot and counts as an add: the subscription's voice fields change.
  return <VoiceLibraryPage onChanged={() => void queryClient.invalidateQueries({ queryKey: subscriptionQueryKey })} />;
}
export function VoiceDesignRoute() {
  useDocumentTitle('Design a voice');
  const queryClient = useQueryClient();
  // Previews are charged (the usage meter changes); a saved voice joins the text to speech voice list.
  return (
    <VoiceDesignPage
      onGenerated={() => void queryClient.invalidateQueries({ queryKey: subscriptionQueryKey })}
      onSaved={() => void queryClient.invalidateQueries({ queryKey: ['tts', 'voices'] })}
    />
  );
}
