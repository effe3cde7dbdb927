import { act, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HistoryItem } from '@/lib/api';
import { PlayerProvider, PlayerStore } from '@/lib/player';
import { GlobalPlayer } from './GlobalPlayer';

afterEach(() => vi.useRealTimers());

const historyItem: HistoryItem = {
  history_item_id: 'h1',
  voice_name: 'Aria',
  text: 'Hello world',
  date_unix: 1_700_000_000,
  character_count_change_from: 0,
  character_count_change_to: 11,
  content_type: 'audio/mpeg',
  state: 'created',
};

function setup() {
  const fetchHistoryItem = vi.fn(async () => historyItem);
  const store = new PlayerStore({ fetchHistoryItem });
  const utils = render(
    <PlayerProvider store={store}>
      <input aria-label="Typing here" />
      <textarea aria-label="Text" />
      <GlobalPlayer feedback={<button type="button">Thumbs up</button>} />
    </PlayerProvider>,
  );
  const audio = utils.getByTestId('player-audio') as HTMLAudioElement;
  Object.defineProperty(audio, 'duration', { configurable: true, get: () => 60 });
  act(() =>
    store.load({ id: 'h1', src: '/v1/history/h1/audio', type: 'speechHistoryItem', title: 'Hello world', voiceName: 'Aria', historyItemId: 'h1' }),
  );
  return { store, audio, ...utils };
}

describe('GlobalPlayer', () => {
  it('shows title, voice, time and goes ready → playing → paused', async () => {
    const { store, audio } = setup();
    expect(screen.getByTestId('player')).toHaveAttribute('data-state', 'ready');
    expect(screen.getByText('Hello world')).toBeInTheDocument();
    expect(screen.getByText('Aria')).toBeInTheDocument();
    expect(screen.getByTestId('player-time')).toHaveTextContent('0:00 / 1:00');

    await userEvent.click(screen.getByTestId('player-play'));
    expect(store.getState().status).toBe('playing');
    expect(audio.paused).toBe(false);
    await userEvent.click(screen.getByTestId('player-play'));
    expect(store.getState().status).toBe('paused');
  });

  it('space toggles play/pause, but not while typing in an input', () => {
    const { store } = setup();
    fireEvent.keyDown(document.body, { key: ' ', code: 'Space' });
    expect(store.getState().status).toBe('playing');
    fireEvent.keyDown(document.body, { key: ' ', code: 'Space' });
    expect(store.getState().status).toBe('paused');

    fireEvent.keyDown(screen.getByLabelText('Typing here'), { key: ' ', code: 'Space' });
    fireEvent.keyDown(screen.getByLabelText('Text'), { key: ' ', code: 'Space' });
    expect(store.getState().status).toBe('paused');
  });

  it('arrows skip 3 s, not with Ctrl or Meta, not while typing', () => {
    const { audio } = setup();
    audio.currentTime = 10;
    fireEvent.keyDown(document.body, { key: 'ArrowRight' });
    expect(audio.currentTime).toBe(13);
    fireEvent.keyDown(document.body, { key: 'ArrowLeft' });
    fireEvent.keyDown(document.body, { key: 'ArrowLeft' });
    expect(audio.currentTime).toBe(7);
    fireEvent.keyDown(document.body, { key: 'ArrowRight', ctrlKey: true });
    fireEvent.keyDown(document.body, { key: 'ArrowLeft', metaKey: true });
    fireEvent.keyDown(screen.getByLabelText('Typing here'), { key: 'ArrowRight' });
    expect(audio.currentTime).toBe(7);
    // Clamped at 0.
    audio.currentTime = 1;
    fireEvent.keyDown(document.body, { key: 'ArrowLeft' });
    expect(audio.currentTime).toBe(0);
  });

  it('skip buttons jump 10 s', async () => {
    const { audio } = setup();
    audio.currentTime = 20;
    await userEvent.click(screen.getByRole('button', { name: 'Forward 10 seconds' }));
    expect(audio.currentTime).toBe(30);
    await userEvent.click(screen.getByRole('button', { name: 'Back 10 seconds' }));
    await userEvent.click(screen.getByRole('button', { name: 'Back 10 seconds' }));
    expect(audio.currentTime).toBe(10);
  });

  it('offers speeds 0.8, 1, 1.2, 1.5, 2 and applies them', async () => {
    const { audio, store } = setup();
    const select = screen.getByLabelText('Playback speed') as HTMLSelectElement;
    expect([...select.options].map((o) => Number(o.value))).toEqual([0.8, 1, 1.2, 1.5, 2]);
    expect(select.value).toBe('1');
    await userEvent.selectOptions(select, '1.5');
    expect(audio.playbackRate).toBe(1.5);
    expect(store.getState().speed).toBe(1.5);
  });

  it('progress slider has step 0.1 and seeks', () => {
    const { audio } = setup();
    const seek = screen.getByLabelText('Seek');
    expect(seek).toHaveAttribute('step', '0.1');
    expect(seek).toHaveAttribute('max', '60');
    fireEvent.change(seek, { target: { value: '12.5' } });
    expect(audio.currentTime).toBe(12.5);
  });

  it('ends: resets position and reports ended', () => {
    const { store, audio } = setup();
    const onEnded = vi.fn();
    store.onEnded(onEnded);
    audio.currentTime = 59;
    act(() => {
      audio.dispatchEvent(new Event('ended'));
    });
    expect(store.getState().status).toBe('ended');
    expect(audio.currentTime).toBe(0);
    expect(onEnded).toHaveBeenCalled();
  });

  it('collapses to a thin bar and expands again', async () => {
    setup();
    await userEvent.click(screen.getByRole('button', { name: 'Collapse player' }));
    expect(screen.getByTestId('player')).toHaveAttribute('data-collapsed', 'true');
    expect(screen.queryByTestId('player-play')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Expand player' }));
    expect(screen.getByTestId('player-play')).toBeInTheDocument();
  });

  it('download is disabled until the history item is fetched (after 1 s), then uses its file name', async () => {
    vi.useFakeTimers();
    const { store } = setup();
    const downloader = vi.fn(async () => undefined);
    store.setDownloader(downloader);
    expect(screen.getByTestId('player-download')).toBeDisabled();
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(screen.getByTestId('player-download')).toBeEnabled();
    fireEvent.click(screen.getByTestId('player-download'));
    expect(downloader).toHaveBeenCalledWith(
      expect.objectContaining({ historyItemId: 'h1', loaded: true, fileName: expect.stringMatching(/_Aria_.*_Hello_world\.mp3$/) }),
      historyItem,
    );
  });

  it('feedback buttons appear after 3 s of playback', async () => {
    vi.useFakeTimers();
    setup();
    fireEvent.click(screen.getByTestId('player-play'));
    await act(() => vi.advanceTimersByTimeAsync(2999));
    expect(screen.queryByTestId('player-feedback')).not.toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(screen.getByTestId('player-feedback')).toContainElement(screen.getByRole('button', { name: 'Thumbs up' }));
  });

  it('feedback buttons appear at the end', () => {
    const { audio } = setup();
    expect(screen.queryByTestId('player-feedback')).not.toBeInTheDocument();
    act(() => {
      audio.dispatchEvent(new Event('ended'));
    });
    expect(screen.getByTestId('player-feedback')).toBeInTheDocument();
  });

  it('keeps the <audio> element as the source of truth; the waveform is only a picture', () => {
    const { audio } = setup();
    expect(audio).toHaveAttribute('src', '/v1/history/h1/audio');
    const waveform = screen.getByTestId('player-waveform');
    expect(waveform).toHaveAttribute('aria-hidden', 'true');
    // No Web Audio in this test DOM: the plain slider stays visible.
    expect(screen.getByLabelText('Seek')).not.toHaveClass('opacity-0');
  });

  it('renders nothing visible while idle', () => {
    const store = new PlayerStore();
    render(
      <PlayerProvider store={store}>
        <GlobalPlayer />
      </PlayerProvider>,
    );
    expect(screen.queryByTestId('player')).not.toBeInTheDocument();
    expect(store.getState().status).toBe('idle');
  });
});
