import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/Toaster';
import { clearToasts } from '@/lib/toast';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { TextToSpeechPage, TTS_NOT_ALLOWED } from './TextToSpeechPage';

const voices = { voices: [{ voice_id: 'v-aria', name: 'Aria', category: 'premade', labels: {} }], has_more: false, total_count: 1, next_page_token: null };
const models = [{ model_id: 'eleven_multilingual_v2', name: 'Multilingual v2', can_do_text_to_speech: true }];

function handlers(access: unknown, extra: Parameters<typeof mockFetch>[0] = {}) {
  return mockFetch({
    'GET /v2/voices': () => jsonResponse(voices),
    'GET /v1/models': () => jsonResponse(models),
    'GET /v1/voices/settings/default': () => jsonResponse({ stability: 0.5, similarity_boost: 0.75, style: 0, use_speaker_boost: true, speed: 1 }),
    'GET /api/workspace/access': () => jsonResponse(access),
    ...extra,
  });
}

function renderPage() {
  renderWithProviders(
    <>
      <TextToSpeechPage />
      <Toaster position="bottom-right" />
    </>,
  );
}

beforeEach(() => {
  if (!URL.createObjectURL) (URL as unknown as { createObjectURL: () => string }).createObjectURL = () => 'blob:x';
});
afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
});

describe('text to speech and group features', () => {
  it('disables generating, with the reason, when the groups leave text_to_speech out', async () => {
    const { calls } = handlers({ role: 'editor', features: ['create_user_api_key'], duties: [] });
    const user = userEvent.setup();
    renderPage();
    expect(await screen.findByText(TTS_NOT_ALLOWED)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByLabelText('Voice')).toHaveTextContent('Aria'));
    await user.type(screen.getByLabelText('Text'), 'Hello world');
    const button = screen.getByRole('button', { name: 'Generate speech' });
    expect(button).toBeDisabled();
    expect(button).toHaveAccessibleDescription(TTS_NOT_ALLOWED);
    await user.keyboard('{Control>}{Enter}{/Control}');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('allows generating when the groups list it, or set no limit', async () => {
    for (const features of [['text_to_speech'], null]) {
      const { calls } = handlers({ role: 'editor', features, duties: [] });
      const { unmount } = renderWithProviders(<TextToSpeechPage />);
      const user = userEvent.setup();
      await waitFor(() => expect(screen.getByLabelText('Voice')).toHaveTextContent('Aria'));
      expect(calls.some((c) => c.url.pathname === '/api/workspace/access')).toBe(true);
      await user.type(screen.getByLabelText('Text'), 'Hi');
      expect(screen.getByRole('button', { name: 'Generate speech' })).toBeEnabled();
      expect(screen.queryByText(TTS_NOT_ALLOWED)).toBeNull();
      unmount();
    }
  });

  it('turns a feature_not_allowed answer into the same notice and refetches access', async () => {
    let accessCalls = 0;
    handlers(
      { role: 'editor', features: null, duties: [] },
      {
        'GET /api/workspace/access': () => {
          accessCalls++;
          return jsonResponse(accessCalls === 1 ? { role: 'editor', features: null, duties: [] } : { role: 'editor', features: [], duties: [] });
        },
        'POST /v1/text-to-speech/v-aria': () =>
          jsonResponse({ detail: { status: 'feature_not_allowed', message: "Your workspace groups don't give you access to text_to_speech. Ask a workspace admin." } }, 403),
      },
    );
    const user = userEvent.setup();
    renderPage();
    await waitFor(() => expect(screen.getByLabelText('Voice')).toHaveTextContent('Aria'));
    await user.type(screen.getByLabelText('Text'), 'Hello');
    await user.click(screen.getByRole('button', { name: 'Generate speech' }));
    expect(await screen.findByText(TTS_NOT_ALLOWED)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Generate speech' })).toBeDisabled();
    await waitFor(() => expect(accessCalls).toBe(2));
    // Not an error toast: the notice explains it.
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
