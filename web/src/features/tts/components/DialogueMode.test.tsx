import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PlayerStore } from '@/lib/player';
import { clearToasts } from '@/lib/toast';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { TextToSpeechPage } from './TextToSpeechPage';

const voices = {
  voices: [
    { voice_id: 'v-aria', name: 'Aria', category: 'premade', labels: {}, preview_url: '/p/aria.mp3' },
    { voice_id: 'v-roger', name: 'Roger', category: 'premade', labels: {}, preview_url: '/p/roger.mp3' },
  ],
  has_more: false,
  total_count: 2,
  next_page_token: null,
};
const models = [{ model_id: 'eleven_multilingual_v2', name: 'Multilingual v2', can_do_text_to_speech: true }];
const defaults = { stability: 0.4, similarity_boost: 0.8, style: 0.1, use_speaker_boost: true, speed: 1 };
const capabilities = {
  features: [{ id: 'text_to_speech', name: 'Text to Speech', description: '' }],
  plan: { tier: 'free', name: 'Free' },
  text_to_speech: { models: [{ model_id: 'eleven_multilingual_v2', max_characters_per_request: 2500, character_cost_multiplier: 1 }] },
};

function handlers() {
  return mockFetch({
    'GET /v2/voices': () => jsonResponse(voices),
    'GET /v1/models': () => jsonResponse(models),
    'GET /v1/voices/settings/default': () => jsonResponse(defaults),
    'GET /api/capabilities': () => jsonResponse(capabilities),
    'POST /v1/text-to-dialogue': () =>
      new Response(new Blob(['ID3'], { type: 'audio/mpeg' }), {
        status: 200,
        headers: { 'Content-Type': 'audio/mpeg', 'history-item-id': 'h-dlg', 'character-cost': '30' },
      }),
  });
}

function renderPage(props: Partial<Parameters<typeof TextToSpeechPage>[0]> = {}) {
  const player = new PlayerStore();
  renderWithProviders(<TextToSpeechPage {...props} />, { player });
  return player;
}

const lines = () => screen.getAllByTestId('dialogue-line');

beforeEach(() => {
  if (!URL.createObjectURL) (URL as unknown as { createObjectURL: () => string }).createObjectURL = () => 'blob:x';
});
afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
  localStorage.clear();
});

describe('dialogue mode', () => {
  it('writes, reorders and generates a dialogue; the player gets it and it can be downloaded', async () => {
    const { calls } = handlers();
    const onGenerated = vi.fn();
    const user = userEvent.setup();
    const player = renderPage({ onGenerated });
    await user.click(screen.getByRole('radio', { name: 'Dialogue' }));
    // Two lines to start, the selected voice and another one.
    await waitFor(() => expect(screen.getByLabelText('Voice of line 2')).toHaveValue('v-roger'));
    expect(screen.getByLabelText('Voice of line 1')).toHaveValue('v-aria');
    expect(screen.queryByLabelText('Voice')).not.toBeInTheDocument(); // the single-voice picker is for text mode
    // Dialogue takes stability only: the other settings are not offered.
    expect(screen.getByLabelText('Stability')).toBeInTheDocument();
    expect(screen.queryByLabelText('Speed')).not.toBeInTheDocument();
    expect(screen.queryByRole('switch', { name: 'Speaker boost' })).not.toBeInTheDocument();

    await user.type(screen.getByLabelText('Text of line 1'), 'Hi there.');
    await user.type(screen.getByLabelText('Text of line 2'), 'Hello [[laughs] you.');
    await user.click(screen.getByRole('button', { name: /Add line/ }));
    expect(lines()).toHaveLength(3);
    expect(screen.getByLabelText('Voice of line 3')).toHaveValue('v-aria'); // the other side answers
    await user.type(screen.getByLabelText('Text of line 3'), 'Bye.');
    // Line 3 moves up to second place; then the (now) third line is removed.
    await user.click(screen.getByRole('button', { name: 'Move line 3 up' }));
    expect(screen.getByLabelText('Text of line 2')).toHaveValue('Bye.');
    await user.click(screen.getByRole('button', { name: 'Remove line 3' }));
    expect(lines()).toHaveLength(2);
    await user.type(screen.getByLabelText('Text of line 2'), ' [[whispers] Really.');
    expect(screen.getByTestId('dialogue-character-count')).toHaveTextContent('32 / 3,000 characters');

    await user.click(screen.getByRole('button', { name: 'Generate dialogue' }));
    await waitFor(() => expect(player.getState().item?.historyItemId).toBe('h-dlg'));
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.url.searchParams.get('output_format')).toBe('mp3_44100_128');
    expect(post.body).toEqual({
      inputs: [
        { text: 'Hi there.', voice_id: 'v-aria' },
        { text: 'Bye. [whispers] Really.', voice_id: 'v-aria' },
      ],
      model_id: 'eleven_multilingual_v2',
      settings: { stability: 0.4 },
    });
    expect(onGenerated).toHaveBeenCalledWith('h-dlg');
    expect(player.getState().item).toMatchObject({ autoStart: true, type: 'text-to-speech', voiceName: 'Aria' });
    expect(screen.getByRole('button', { name: /Download/ })).toBeEnabled();

    // The last dialogue is shown with its tags hidden (the option appears because there are tags).
    const last = screen.getByRole('region', { name: 'Last dialogue' });
    expect(within(last).getByText(/Bye\. Really\./)).toBeInTheDocument();
    const hide = within(last).getByLabelText('Hide tags');
    expect(hide).toBeChecked();
    await user.click(hide);
    expect(within(last).getByText(/Bye\. \[whispers\] Really\./)).toBeInTheDocument();
  });

  it('refuses more than 3000 characters and offers no more than 50 lines', async () => {
    handlers();
    const user = userEvent.setup();
    renderPage({
      draft: { text: '', modelId: 'eleven_multilingual_v2', dialogue: Array.from({ length: 50 }, (_, i) => ({ text: `Line ${i}.`, voice_id: 'v-aria' })) },
    });
    await waitFor(() => expect(lines()).toHaveLength(50));
    expect(screen.getByRole('radio', { name: 'Dialogue' })).toHaveAttribute('aria-checked', 'true');
    expect(screen.getByRole('button', { name: /Add line/ })).toBeDisabled();
    expect(screen.getByText('A dialogue has at most 50 lines.')).toBeInTheDocument();

    fireEvent.change(screen.getByLabelText('Text of line 1'), { target: { value: 'x'.repeat(3000) } });
    expect(screen.getByRole('alert')).toHaveTextContent('at most 3,000 characters');
    expect(screen.getByRole('button', { name: 'Generate dialogue' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Remove line 50' }));
    expect(screen.getByRole('button', { name: /Add line/ })).toBeEnabled();
  });

  it('keeps Generate off while a line is empty and shows no tag option without tags', async () => {
    handlers();
    const user = userEvent.setup();
    renderPage();
    await user.click(screen.getByRole('radio', { name: 'Dialogue' }));
    await waitFor(() => expect(screen.getByLabelText('Voice of line 2')).toHaveValue('v-roger'));
    await user.type(screen.getByLabelText('Text of line 1'), 'Only one line written.');
    expect(screen.getByRole('button', { name: 'Generate dialogue' })).toBeDisabled();
    expect(screen.queryByLabelText('Hide tags')).not.toBeInTheDocument();
  });
});
