import { act, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { PlayerProvider, PlayerStore } from '@/lib/player';
import { GlobalPlayer } from './GlobalPlayer';

function setup() {
  const store = new PlayerStore();
  const utils = render(
    <PlayerProvider store={store}>
      <input aria-label="Typing here" />
      <textarea aria-label="Text" />
      <GlobalPlayer />
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

  it('download uses the downloader with the current item', async () => {
    const { store } = setup();
    const downloader = vi.fn(async () => undefined);
    store.setDownloader(downloader);
    await userEvent.click(screen.getByTestId('player-download'));
    expect(downloader).toHaveBeenCalledWith(expect.objectContaining({ historyItemId: 'h1' }));
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
