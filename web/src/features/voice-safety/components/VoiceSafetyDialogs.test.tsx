import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { newlyFlagged, safetyVoicesQueryKey, type Voice } from '../api';
import { VoiceSafetyDialogs } from './VoiceSafetyDialogs';

const voice = (voice_id: string, name: string, safety_control: string | null = null) =>
  ({ voice_id, name, category: 'premade', labels: {}, safety_control }) as unknown as Voice;

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('newlyFlagged', () => {
  it('flags nothing on the first list, then only voices whose control changed to BAN or CAPTCHA', () => {
    const first = [voice('a', 'Adam', 'BAN'), voice('r', 'Rachel')];
    expect(newlyFlagged(null, first)).toEqual([]);
    const seen = new Map<string, 'BAN' | 'CAPTCHA' | null>([
      ['a', 'BAN'],
      ['r', null],
    ]);
    expect(newlyFlagged(seen, first)).toEqual([]);
    const later = [voice('a', 'Adam', 'BAN'), voice('r', 'Rachel', 'CAPTCHA'), voice('n', 'New', 'BAN')];
    expect(newlyFlagged(seen, later).map((f) => [f.voice.voice_id, f.control])).toEqual([['r', 'CAPTCHA']]);
  });
});

describe('VoiceSafetyDialogs', () => {
  it('opens nothing for controls set before the page loaded; opens the blocked dialog when a voice is newly banned', async () => {
    let voices = [voice('a', 'Adam', 'BAN'), voice('j', 'Josh')];
    mockFetch({ 'GET /v2/voices': () => jsonResponse({ voices, has_more: false, total_count: voices.length }) });
    const user = userEvent.setup();
    const { queryClient } = renderWithProviders(<VoiceSafetyDialogs pollMs={0} />);
    await waitFor(() => expect(queryClient.getQueryData(safetyVoicesQueryKey)).toBeDefined());
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    voices = [voice('a', 'Adam', 'BAN'), voice('j', 'Josh', 'BAN')];
    await act(() => queryClient.invalidateQueries({ queryKey: safetyVoicesQueryKey }));
    expect(await screen.findByRole('dialog', { name: 'Voice blocked' })).toHaveTextContent('Josh has been blocked');
    await user.click(screen.getByRole('button', { name: 'Got it' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('opens the captcha dialog when a voice is newly flagged: plays the sentence, sends the reading, shows a failure, then the pass', async () => {
    document.cookie = 'xi_website_csrf=tok123';
    let voices = [voice('r', 'Rachel')];
    const sent: FormData[] = [];
    let answer = () =>
      jsonResponse(
        { detail: { status: 'voice_captcha_failed', message: 'The recording does not match the sentence: we heard "hello".' } },
        400,
      );
    const { calls } = mockFetch({
      'GET /v2/voices': () => jsonResponse({ voices, has_more: false, total_count: voices.length }),
      'GET /v1/voices/r/captcha': () =>
        jsonResponse({
          text: 'Rice is often served in round bowls.',
          audio_base64: 'SUQz',
          audio_mime_type: 'audio/mpeg',
          attempts_remaining: 5,
          max_word_error_rate: 50,
        }),
      'POST /v1/voices/r/captcha': ({ body }) => {
        sent.push(body as FormData);
        return answer();
      },
    });
    const user = userEvent.setup();
    const { queryClient } = renderWithProviders(<VoiceSafetyDialogs pollMs={0} />);
    await waitFor(() => expect(queryClient.getQueryData(safetyVoicesQueryKey)).toBeDefined());
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    voices = [voice('r', 'Rachel', 'CAPTCHA')];
    await act(() => queryClient.invalidateQueries({ queryKey: safetyVoicesQueryKey }));
    expect(await screen.findByRole('dialog', { name: 'Voice captcha' })).toBeInTheDocument();
    expect(await screen.findByTestId('captcha-text')).toHaveTextContent('Rice is often served in round bowls.');
    expect(screen.getByTestId('captcha-audio')).toHaveAttribute('src', 'data:audio/mpeg;base64,SUQz');
    expect(screen.getByTestId('captcha-submit')).toBeDisabled(); // nothing recorded yet

    await user.upload(screen.getByTestId('captcha-file'), new File([new Uint8Array(900)], 'reading.webm', { type: 'audio/webm' }));
    await user.click(screen.getByTestId('captcha-submit'));
    expect(await screen.findByTestId('captcha-error')).toHaveTextContent('we heard "hello"');
    expect(sent).toHaveLength(1);
    const rec = sent[0].get('recording');
    expect(rec).toBeInstanceOf(File);
    expect((rec as File).name).toBe('reading.webm');
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.headers.get('X-CSRF-Token')).toBe('tok123');

    answer = () => jsonResponse({ status: 'ok', transcript: 'rice is often served in round bowls', word_error_rate: 0 });
    await user.click(screen.getByTestId('captcha-submit'));
    expect(await screen.findByTestId('captcha-passed')).toHaveTextContent('Rachel can be used again');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });
});
