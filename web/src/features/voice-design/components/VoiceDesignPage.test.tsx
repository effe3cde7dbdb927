import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { PARAMETRIC_NOTE } from '../api/model';
import { VoiceDesignPage } from './VoiceDesignPage';

afterEach(() => vi.unstubAllGlobals());

const previews = {
  text: 'Hello! This is an old American man’s voice, designed from a short description.',
  previews: ['g1', 'g2', 'g3'].map((id, i) => ({
    generated_voice_id: id,
    audio_base_64: 'SUQz',
    media_type: 'audio/mpeg',
    duration_secs: 5 + i,
    language: 'en',
  })),
};

const voices = {
  voices: [
    { voice_id: 'v-old', name: 'Old Tom', category: 'generated', labels: { language: 'en' } },
    { voice_id: 'v-es', name: 'Lucía', category: 'premade', labels: { language: 'es' } },
  ],
};

const saved = { voice_id: 'v-new', name: 'Narrator', category: 'generated', labels: {} };

describe('VoiceDesignPage', () => {
  it('designs from a description, plays three previews, and saves the chosen one', async () => {
    const { calls } = mockFetch({
      'GET /v1/voices': () => jsonResponse(voices),
      'POST /v1/text-to-voice/design': () => jsonResponse(previews),
      'POST /v1/text-to-voice': () => jsonResponse(saved),
    });
    const onSaved = vi.fn();
    const onGenerated = vi.fn();
    const user = userEvent.setup();
    renderWithProviders(<VoiceDesignPage onSaved={onSaved} onGenerated={onGenerated} />);

    expect(screen.getByTestId('parametric-note')).toHaveTextContent(PARAMETRIC_NOTE);
    // Too short: refused in the page, nothing sent.
    const box = screen.getByLabelText('Voice description');
    await user.type(box, 'deep man');
    expect(screen.getByTestId('description-count')).toHaveTextContent('8 / 1000');
    await user.click(screen.getByRole('button', { name: 'Generate previews' }));
    expect(await screen.findByText(/at least 20 characters/)).toBeInTheDocument();
    expect(calls.some((c) => c.url.pathname === '/v1/text-to-voice/design')).toBe(false);

    // An example fills the box; generating sends it with an auto-generated text.
    await user.click(screen.getByRole('button', { name: /high-pitched young girl/ }));
    expect(box).toHaveValue('A high-pitched young girl, excited and fast, telling a story');
    await user.click(screen.getByRole('button', { name: 'Generate previews' }));
    const cards = await screen.findAllByTestId('voice-preview');
    expect(cards).toHaveLength(3);
    const design = calls.find((c) => c.url.pathname === '/v1/text-to-voice/design')!;
    expect(design.body).toEqual({ voice_description: 'A high-pitched young girl, excited and fast, telling a story', auto_generate_text: true });
    expect(design.url.searchParams.get('output_format')).toBe('mp3_44100_128');
    expect(onGenerated).toHaveBeenCalled();
    expect(screen.getByLabelText('Play preview 2')).toHaveAttribute('src', 'data:audio/mpeg;base64,SUQz');

    // Pick the second, name it, save.
    await user.click(screen.getByLabelText('Preview 2 · 6.0 s'));
    await user.type(screen.getByLabelText('Voice name'), 'Narrator');
    await user.click(screen.getByRole('button', { name: 'Save voice' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Saved “Narrator” to your voices.');
    const save = calls.find((c) => c.method === 'POST' && c.url.pathname === '/v1/text-to-voice')!;
    expect(save.body).toEqual({
      voice_name: 'Narrator',
      voice_description: 'A high-pitched young girl, excited and fast, telling a story',
      generated_voice_id: 'g2',
      played_not_selected_voice_ids: ['g1', 'g3'],
    });
    expect(onSaved).toHaveBeenCalledWith(saved);
  });

  it('remixes a voice named in the address, and shows the server’s refusal', async () => {
    const { calls } = mockFetch({
      'GET /v1/voices': () => jsonResponse(voices),
      'POST /v1/text-to-voice/v-old/remix': () => jsonResponse(previews),
      'POST /v1/text-to-voice': () =>
        jsonResponse({ detail: { status: 'voice_limit_reached', message: 'You have reached your maximum amount of custom voices (3 / 3).' } }, 400),
    });
    const user = userEvent.setup();
    renderWithProviders(<VoiceDesignPage />, { route: '/app/voice-lab/design?remix=v-old' });
    expect(screen.getByRole('heading', { name: 'Remix a voice' })).toBeInTheDocument();
    // Only English voices can be remixed.
    await waitFor(() => expect(screen.getByRole('option', { name: 'Remix Old Tom' })).toBeInTheDocument());
    expect(screen.queryByRole('option', { name: 'Remix Lucía' })).toBeNull();
    await user.type(screen.getByLabelText('How should the voice change?'), 'older');
    await user.click(screen.getByRole('button', { name: 'Remix' }));
    expect(await screen.findAllByTestId('voice-preview')).toHaveLength(3);
    expect(calls.find((c) => c.url.pathname === '/v1/text-to-voice/v-old/remix')?.body).toEqual({ voice_description: 'older', auto_generate_text: true });

    await user.type(screen.getByLabelText('Voice name'), 'Older Tom');
    await user.click(screen.getByRole('button', { name: 'Save voice' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('maximum amount of custom voices (3 / 3)');
    const save = calls.find((c) => c.method === 'POST' && c.url.pathname === '/v1/text-to-voice')!;
    expect((save.body as { voice_description: string }).voice_description).toBe('Remix of Old Tom: older');
  });
});
