import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GlobalPlayer } from '@/components/player/GlobalPlayer';
import { Toaster } from '@/components/Toaster';
import { PlayerStore } from '@/lib/player';
import { clearToasts } from '@/lib/toast';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { TextToSpeechPage } from './TextToSpeechPage';

const voices = {
  voices: [
    { voice_id: 'v-aria', name: 'Aria', category: 'premade', labels: { accent: 'american', gender: 'female' }, preview_url: '/p/aria.mp3' },
    { voice_id: 'v-roger', name: 'Roger', category: 'premade', labels: { accent: 'british' }, preview_url: '/p/roger.mp3' },
  ],
  has_more: false,
  total_count: 2,
  next_page_token: null,
};
const models = [
  { model_id: 'eleven_flash_v2_5', name: 'Flash v2.5', can_do_text_to_speech: true },
  { model_id: 'eleven_multilingual_v2', name: 'Multilingual v2', can_do_text_to_speech: true },
  { model_id: 'sts_only', name: 'STS only', can_do_text_to_speech: false },
];
const defaults = { stability: 0.4, similarity_boost: 0.8, style: 0.1, use_speaker_boost: true, speed: 1 };
// GET /api/capabilities as the server answers a free-plan caller.
const capabilities = {
  features: [{ id: 'text_to_speech', name: 'Text to Speech', description: '' }],
  plan: { tier: 'free', name: 'Free' },
  text_to_speech: {
    models: [
      { model_id: 'eleven_flash_v2_5', max_characters_per_request: 2500, character_cost_multiplier: 0.5 },
      { model_id: 'eleven_multilingual_v2', max_characters_per_request: 2500, character_cost_multiplier: 1 },
    ],
  },
};

function handlers(extra: Parameters<typeof mockFetch>[0] = {}) {
  return mockFetch({
    'GET /v2/voices': () => jsonResponse(voices),
    'GET /v1/models': () => jsonResponse(models),
    'GET /v1/voices/settings/default': () => jsonResponse(defaults),
    'GET /api/capabilities': () => jsonResponse(capabilities),
    ...extra,
  });
}

function renderPage(props: Partial<Parameters<typeof TextToSpeechPage>[0]> = {}) {
  const player = new PlayerStore();
  renderWithProviders(
    <>
      <TextToSpeechPage {...props} />
      <Toaster position="bottom-right" />
    </>,
    { player },
  );
  return player;
}

beforeEach(() => {
  if (!URL.createObjectURL) (URL as unknown as { createObjectURL: () => string }).createObjectURL = () => 'blob:x';
});
afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
});

describe('voice and model persistence', () => {
  it('defaults to the first voice and eleven_multilingual_v2', async () => {
    handlers();
    renderPage();
    await waitFor(() => expect(screen.getByLabelText('Voice')).toHaveTextContent('Aria'));
    await waitFor(() => expect(screen.getByLabelText('Model')).toHaveValue('eleven_multilingual_v2'));
    // Models that cannot do TTS are not offered.
    expect(within(screen.getByLabelText('Model')).queryByText('STS only')).not.toBeInTheDocument();
  });

  it('restores the stored voice and model', async () => {
    localStorage.setItem('timbre.tts.voiceId', 'v-roger');
    localStorage.setItem('timbre.tts.modelId', 'eleven_flash_v2_5');
    handlers();
    renderPage();
    await waitFor(() => expect(screen.getByLabelText('Voice')).toHaveTextContent('Roger'));
    await waitFor(() => expect(screen.getByLabelText('Model')).toHaveValue('eleven_flash_v2_5'));
  });

  it('falls back when the stored ids no longer exist', async () => {
    localStorage.setItem('timbre.tts.voiceId', 'v-deleted');
    localStorage.setItem('timbre.tts.modelId', 'old_model');
    handlers();
    renderPage();
    await waitFor(() => expect(screen.getByLabelText('Voice')).toHaveTextContent('Aria'));
    await waitFor(() => expect(screen.getByLabelText('Model')).toHaveValue('eleven_multilingual_v2'));
  });

  it('remembers a newly picked voice and model', async () => {
    handlers();
    const user = userEvent.setup();
    renderPage();
    await waitFor(() => expect(screen.getByLabelText('Voice')).toHaveTextContent('Aria'));
    await user.click(screen.getByLabelText('Voice'));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: /^Roger/ }));
    expect(localStorage.getItem('timbre.tts.voiceId')).toBe('v-roger');
    await user.selectOptions(screen.getByLabelText('Model'), 'eleven_flash_v2_5');
    expect(localStorage.getItem('timbre.tts.modelId')).toBe('eleven_flash_v2_5');
  });
});

describe('generate', () => {
  it('counts characters as credits, posts the request and loads the player', async () => {
    const { calls } = handlers({
      'POST /v1/text-to-speech/v-aria': () =>
        new Response(new Blob(['ID3'], { type: 'audio/mpeg' }), {
          status: 200,
          headers: { 'Content-Type': 'audio/mpeg', 'history-item-id': 'h-123', 'character-cost': '11' },
        }),
    });
    const user = userEvent.setup();
    const player = renderPage();
    await waitFor(() => expect(screen.getByLabelText('Voice')).toHaveTextContent('Aria'));
    await user.type(screen.getByLabelText('Text'), 'Hello world');
    await waitFor(() => expect(screen.getByTestId('character-count')).toHaveTextContent('11 / 2,500 characters'));
    expect(screen.getByTestId('cost')).toHaveTextContent('11 credits');
    await waitFor(() => expect(screen.getByLabelText('Stability')).toHaveValue('0.4'));
    await user.click(screen.getByRole('button', { name: 'Generate speech' }));

    await waitFor(() => expect(player.getState().item?.historyItemId).toBe('h-123'));
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.url.searchParams.get('output_format')).toBe('mp3_44100_128');
    expect(post.body).toEqual({
      text: 'Hello world',
      model_id: 'eleven_multilingual_v2',
      voice_settings: defaults,
    });
    expect(player.getState().item).toMatchObject({ autoStart: true, voiceName: 'Aria', type: 'text-to-speech' });
  });

  it("charges the model's cost factor: half on Flash", async () => {
    localStorage.setItem('timbre.tts.modelId', 'eleven_flash_v2_5');
    handlers();
    const user = userEvent.setup();
    renderPage();
    await waitFor(() => expect(screen.getByLabelText('Model')).toHaveValue('eleven_flash_v2_5'));
    await user.type(screen.getByLabelText('Text'), 'Hello world');
    await waitFor(() => expect(screen.getByTestId('character-count')).toHaveTextContent('11 / 2,500 characters'));
    // 11 × 0.5 rounded up, as the server charges.
    expect(screen.getByTestId('cost')).toHaveTextContent('6 credits');
  });

  it('counts whitespace-only text as nothing and keeps Generate off', async () => {
    handlers();
    const user = userEvent.setup();
    renderPage();
    await waitFor(() => expect(screen.getByLabelText('Voice')).toHaveTextContent('Aria'));
    await user.type(screen.getByLabelText('Text'), '   ');
    expect(screen.getByTestId('character-count')).toHaveTextContent('0 / ');
    expect(screen.getByTestId('cost')).toHaveTextContent('0 credits');
    expect(screen.getByRole('button', { name: 'Generate speech' })).toBeDisabled();
  });

  it('blocks text over the plan limit before sending, in words', async () => {
    localStorage.setItem('timbre.tts.text', 'a'.repeat(2501));
    const { calls } = handlers();
    const user = userEvent.setup();
    renderPage();
    await waitFor(() => expect(screen.getByLabelText('Voice')).toHaveTextContent('Aria'));
    const alert = await screen.findByText(/This text is 2,501 characters long/);
    expect(alert).toHaveTextContent('Multilingual v2 takes at most 2,500 characters per request on the Free plan');
    expect(alert.textContent).not.toContain('eleven_');
    const generate = screen.getByRole('button', { name: 'Generate speech' });
    expect(generate).toBeDisabled();
    await user.click(generate);
    await user.keyboard('{Control>}{Enter}{/Control}');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('says so when a paste is cut at the limit', async () => {
    handlers();
    const user = userEvent.setup();
    renderPage();
    await waitFor(() => expect(screen.getByTestId('character-count')).toHaveTextContent('/ 2,500'));
    await user.click(screen.getByLabelText('Text'));
    await user.paste('b'.repeat(2600));
    expect(screen.getByLabelText('Text')).toHaveValue('b'.repeat(2500));
    expect(screen.getByText(/The pasted text was cut: its last 100 characters were left out/)).toHaveTextContent(
      'one request takes at most 2,500 characters on the Free plan',
    );
  });

  it('keeps the typed text and voice settings over a reload', async () => {
    handlers();
    const user = userEvent.setup();
    renderPage();
    await waitFor(() => expect(screen.getByLabelText('Voice')).toHaveTextContent('Aria'));
    await user.type(screen.getByLabelText('Text'), 'Keep me');
    await user.click(screen.getByRole('switch', { name: 'Speaker boost' }));
    document.body.innerHTML = '';
    handlers();
    renderPage();
    await waitFor(() => expect(screen.getByLabelText('Text')).toHaveValue('Keep me'));
    expect(screen.getByRole('switch', { name: 'Speaker boost' })).toHaveAttribute('aria-checked', 'false');
  });

  it('loads a picked history item: text, voice, model and settings', async () => {
    handlers();
    const draft = {
      text: 'From history',
      voiceId: 'v-roger',
      modelId: 'eleven_flash_v2_5',
      settings: { stability: 0.9, similarity_boost: 0.2, style: 0, use_speaker_boost: false, speed: 1.1 },
    };
    renderPage({ draft });
    await waitFor(() => expect(screen.getByLabelText('Text')).toHaveValue('From history'));
    await waitFor(() => expect(screen.getByLabelText('Voice')).toHaveTextContent('Roger'));
    expect(screen.getByLabelText('Model')).toHaveValue('eleven_flash_v2_5');
    expect(screen.getByLabelText('Stability')).toHaveValue('0.9');
    expect(screen.getByRole('switch', { name: 'Speaker boost' })).toHaveAttribute('aria-checked', 'false');
  });

  it('shows the server message of a quota error in a toast', async () => {
    handlers({
      'POST /v1/text-to-speech/v-aria': () =>
        jsonResponse(
          { detail: { status: 'quota_exceeded', message: 'This request exceeds your quota. You have 5 credits remaining.' } },
          401,
        ),
    });
    const user = userEvent.setup();
    renderPage();
    await waitFor(() => expect(screen.getByLabelText('Voice')).toHaveTextContent('Aria'));
    await user.type(screen.getByLabelText('Text'), 'Hello world');
    await user.click(screen.getByRole('button', { name: 'Generate speech' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('This request exceeds your quota. You have 5 credits remaining.');
  });

  it('reset restores the server default voice settings', async () => {
    handlers();
    const user = userEvent.setup();
    renderPage();
    const speed = await screen.findByLabelText('Speed');
    expect(speed).toHaveAttribute('min', '0.7');
    expect(speed).toHaveAttribute('max', '1.2');
    await waitFor(() => expect(screen.getByLabelText('Similarity')).toHaveValue('0.8'));
    await user.click(screen.getByRole('switch', { name: 'Speaker boost' }));
    expect(screen.getByRole('switch', { name: 'Speaker boost' })).toHaveAttribute('aria-checked', 'false');
    await user.click(screen.getByRole('button', { name: 'Reset to defaults' }));
    expect(screen.getByRole('switch', { name: 'Speaker boost' })).toHaveAttribute('aria-checked', 'true');
  });
});

describe('voice preview through the global player', () => {
  function renderWithPlayer() {
    const player = new PlayerStore({ fetchHistoryItem: vi.fn() });
    renderWithProviders(
      <>
        <TextToSpeechPage />
        <GlobalPlayer />
        <Toaster position="bottom-right" />
      </>,
      { player },
    );
    return player;
  }

  async function openPicker() {
    const user = userEvent.setup();
    await waitFor(() => expect(screen.getByLabelText('Voice')).toHaveTextContent('Aria'));
    await user.click(screen.getByLabelText('Voice'));
    const dialog = await screen.findByRole('dialog', { name: 'Select a voice' });
    return { user, dialog };
  }

  it('plays preview_url as a voicePreview item and toggles it', async () => {
    handlers();
    const player = renderWithPlayer();
    const { user, dialog } = await openPicker();
    await user.click(within(dialog).getByRole('button', { name: 'Preview Roger' }));
    expect(player.getState().item).toMatchObject({
      type: 'voicePreview',
      src: '/p/roger.mp3',
      voiceName: 'Roger',
      voiceId: 'v-roger',
      loaded: true,
    });
    expect(screen.getByTestId('player-audio')).toHaveAttribute('src', '/p/roger.mp3');
    await waitFor(() => expect(player.getState().status).toBe('playing'));
    await user.click(within(dialog).getByRole('button', { name: 'Stop preview of Roger' }));
    expect(player.getState().status).toBe('paused');
    expect(within(dialog).getByRole('button', { name: 'Preview Roger' })).toBeInTheDocument();
  });

  it('shows "We are sorry, something went wrong." when the preview fails', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    vi.spyOn(HTMLMediaElement.prototype, 'play').mockRejectedValue(new DOMException('bad', 'NotSupportedError'));
    handlers();
    renderWithPlayer();
    const { user, dialog } = await openPicker();
    await user.click(within(dialog).getByRole('button', { name: 'Preview Aria' }));
    expect(await screen.findByText('We are sorry, something went wrong.')).toBeInTheDocument();
    // The load error of the same preview does not add a second toast.
    screen.getByTestId('player-audio').dispatchEvent(new Event('error'));
    await new Promise((r) => setTimeout(r, 10));
    expect(screen.getAllByText('We are sorry, something went wrong.')).toHaveLength(1);
  });

  it('a blocked autoplay of a preview is only logged', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    vi.spyOn(HTMLMediaElement.prototype, 'play').mockRejectedValue(new DOMException('blocked', 'NotAllowedError'));
    handlers();
    const player = renderWithPlayer();
    const { user, dialog } = await openPicker();
    await user.click(within(dialog).getByRole('button', { name: 'Preview Aria' }));
    await waitFor(() => expect(info).toHaveBeenCalled());
    expect(player.getState().status).toBe('paused');
    expect(screen.queryByText('We are sorry, something went wrong.')).not.toBeInTheDocument();
  });
});
