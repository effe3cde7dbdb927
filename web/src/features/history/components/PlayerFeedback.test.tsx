import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GlobalPlayer } from '@/components/player/GlobalPlayer';
import { PlayerStore } from '@/lib/player';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import type { HistoryItem } from '../api';
import { PlayerFeedback } from './FeedbackThumbs';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const mk = (text: string): HistoryItem => ({
  history_item_id: 'h1',
  voice_name: 'Brian',
  text,
  date_unix: 1_700_000_000,
  character_count_change_from: 0,
  character_count_change_to: text.length,
  content_type: 'audio/mpeg',
  state: 'created',
  feedback: null,
});

/** The player with the app's feedback buttons; the item has played to its end. */
async function playToEnd(text: string) {
  const item = mk(text);
  const { calls } = mockFetch({
    'GET /v1/history/h1': () => jsonResponse(item),
    'POST /v1/history/h1/feedback': () => jsonResponse({ status: 'ok' }),
  });
  vi.useFakeTimers({ shouldAdvanceTime: true });
  const player = new PlayerStore();
  renderWithProviders(<GlobalPlayer feedback={<PlayerFeedback />} />, { player });
  act(() =>
    player.load({ id: 'h1', src: 'blob:x', type: 'text-to-speech', title: text.slice(0, 20), historyItemId: 'h1', text }),
  );
  await act(() => vi.advanceTimersByTimeAsync(1000)); // the history item lookup
  expect(player.getState().historyItem).toEqual(item);
  act(() => {
    screen.getByTestId('player-audio').dispatchEvent(new Event('ended'));
  });
  vi.useRealTimers();
  return { player, calls, feedback: screen.getByTestId('player-feedback') };
}

describe('feedback from the player', () => {
  it('thumbs-down always opens the feedback dialog, which submits for the item', async () => {
    const { calls, feedback, player } = await playToEnd('x'.repeat(500));
    const user = userEvent.setup();
    await user.click(within(feedback).getByRole('button', { name: 'Thumbs down' }));
    const dialog = await screen.findByRole('dialog', { name: 'What went wrong?' });
    await user.click(within(dialog).getByLabelText('Glitches'));
    await user.click(within(dialog).getByRole('button', { name: 'Submit feedback' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.url.pathname).toBe('/v1/history/h1/feedback');
    expect(post.body).toMatchObject({ thumbs_up: false, glitches: true });
    await waitFor(() => expect(player.getState().historyItem?.feedback?.thumbs_up).toBe(false));
    expect(within(screen.getByTestId('player-feedback')).getByRole('button', { name: 'Thumbs down' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
  });

  it('thumbs-up opens the dialog for a text of at most 400 characters', async () => {
    const { feedback } = await playToEnd('y'.repeat(400));
    fireEvent.click(within(feedback).getByRole('button', { name: 'Thumbs up' }));
    expect(await screen.findByRole('dialog', { name: 'What did you like?' })).toBeInTheDocument();
  });

  it('thumbs-up on a longer text is sent at once, without the dialog', async () => {
    const { feedback, calls } = await playToEnd('z'.repeat(401));
    fireEvent.click(within(feedback).getByRole('button', { name: 'Thumbs up' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    expect(calls.find((c) => c.method === 'POST')!.body).toMatchObject({ thumbs_up: true, feedback: null });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});
