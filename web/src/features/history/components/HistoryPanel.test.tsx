import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/Toaster';
import { PlayerStore } from '@/lib/player';
import { clearToasts } from '@/lib/toast';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import type { HistoryItem } from '../api';
import { HistoryPanel } from './HistoryPanel';

afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
});

const mk = (id: string, text: string): HistoryItem => ({
  history_item_id: id,
  text,
  voice_name: 'Aria',
  voice_id: 'v1',
  model_id: 'eleven_multilingual_v2',
  date_unix: 1_700_000_000,
  character_count_change_from: 100,
  character_count_change_to: 100 + text.length,
  content_type: 'audio/mpeg',
  state: 'created',
  output_format: 'mp3_44100_128',
});

function renderPanel() {
  const player = new PlayerStore();
  renderWithProviders(
    <>
      <HistoryPanel />
      <Toaster position="bottom-right" />
    </>,
    { player },
  );
  return player;
}

describe('HistoryPanel', () => {
  it('pages with load more', async () => {
    const { calls } = mockFetch({
      'GET /v1/history': ({ url }) =>
        url.searchParams.get('start_after_history_item_id') === 'h2'
          ? jsonResponse({ history: [mk('h3', 'Third')], has_more: false, last_history_item_id: 'h3' })
          : jsonResponse({ history: [mk('h1', 'First'), mk('h2', 'Second')], has_more: true, last_history_item_id: 'h2' }),
    });
    const user = userEvent.setup();
    renderPanel();
    expect(await screen.findAllByTestId('history-item')).toHaveLength(2);
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(screen.getAllByTestId('history-item')).toHaveLength(3));
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
    expect(calls[1]!.url.searchParams.get('page_size')).toBe('20');
  });

  it('shows a dialogue item with its lines, tags hidden by default (spec §5)', async () => {
    const dialogue = {
      ...mk('h9', ''),
      voice_id: '',
      dialogue: [
        { text: 'Hi  [laughs]there.', voice_id: 'v1', voice_name: 'Aria' },
        { text: 'Hello.', voice_id: 'v2', voice_name: 'Roger' },
      ],
    };
    const broken = { ...mk('h8', 'Plain text'), dialogue: [{ text: '', voice_id: 'v1', voice_name: 'Aria' }] };
    mockFetch({
      'GET /v1/history': () => jsonResponse({ history: [dialogue, broken], has_more: false, last_history_item_id: 'h8' }),
    });
    const user = userEvent.setup();
    renderPanel();
    const [row, plain] = await screen.findAllByTestId('history-item');
    const lines = within(row!).getByTestId('dialogue-lines');
    expect(lines).toHaveTextContent('Aria: Hi there.');
    expect(lines).toHaveTextContent('Roger: Hello.');
    await user.click(within(row!).getByLabelText('Hide tags'));
    expect(lines).toHaveTextContent('Aria: Hi [laughs] there.');
    // A stored dialogue with an empty line is dropped: the item shows its text.
    expect(within(plain!).queryByTestId('dialogue-lines')).not.toBeInTheDocument();
    expect(plain).toHaveTextContent('Plain text');
  });

  it('plays an item in the global player', async () => {
    mockFetch({
      'GET /v1/history': () => jsonResponse({ history: [mk('h1', 'Hello')], has_more: false, last_history_item_id: 'h1' }),
    });
    const user = userEvent.setup();
    const player = renderPanel();
    const row = await screen.findByTestId('history-item');
    await user.click(within(row).getByRole('button', { name: /Play/ }));
    expect(player.getState().item).toMatchObject({
      historyItemId: 'h1',
      src: '/v1/history/h1/audio',
      voiceName: 'Aria',
      type: 'speechHistoryItem',
    });
  });

  it('share: shows the link truncated at 38 characters and copies it', async () => {
    const link = 'http://localhost:8080/share/abcdefghijklmnopqrstuvwxyz0123456789';
    mockFetch({
      'GET /v1/history': () => jsonResponse({ history: [mk('h1', 'Hello')], has_more: false, last_history_item_id: 'h1' }),
      'GET /v1/history/h1/share-link': () => jsonResponse({ share_link: link, public_user_name: 'ada' }),
    });
    const user = userEvent.setup(); // installs its own clipboard stub: replace it after
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } });
    renderPanel();
    const row = await screen.findByTestId('history-item');
    await user.click(within(row).getByRole('button', { name: 'Share' }));
    const dialog = await screen.findByRole('dialog', { name: 'Share with your community' });
    const shown = await within(dialog).findByTestId('share-link');
    expect(shown.textContent).toBe(`${link.slice(0, 38)}…`);
    expect(shown).toHaveAttribute('href', link);
    await user.click(within(dialog).getByRole('button', { name: /Copy link/ }));
    expect(writeText).toHaveBeenCalledWith(link);
    expect(await screen.findByText('Share link copied to clipboard')).toBeInTheDocument();
  });

  it('delete asks for confirmation, then removes the row', async () => {
    const { calls } = mockFetch({
      'GET /v1/history': () =>
        jsonResponse({ history: [mk('h1', 'Hello'), mk('h2', 'World')], has_more: false, last_history_item_id: 'h2' }),
      'DELETE /v1/history/h1': () => jsonResponse({ status: 'ok' }),
    });
    const user = userEvent.setup();
    renderPanel();
    const rows = await screen.findAllByTestId('history-item');
    await user.click(within(rows[0]!).getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete this generation?' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.getAllByTestId('history-item')).toHaveLength(1));
    expect(calls.some((c) => c.method === 'DELETE' && c.headers.has('Accept'))).toBe(true);
  });

  it('download saves the file under the Content-Disposition name', async () => {
    mockFetch({
      'GET /v1/history': () => jsonResponse({ history: [mk('h1', 'Hello')], has_more: false, last_history_item_id: 'h1' }),
      'POST /v1/history/download': () =>
        new Response(new Blob(['ID3'], { type: 'audio/mpeg' }), {
          headers: { 'Content-Type': 'audio/mpeg', 'Content-Disposition': 'attachment; filename="Aria_2024-01-01.mp3"' },
        }),
    });
    if (!URL.createObjectURL) (URL as unknown as { createObjectURL: () => string }).createObjectURL = () => 'blob:x';
    const names: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    const user = userEvent.setup();
    renderPanel();
    const row = await screen.findByTestId('history-item');
    await user.click(within(row).getByRole('button', { name: 'Download' }));
    await waitFor(() => expect(click).toHaveBeenCalled());
    expect(names).toEqual(['Aria_2024-01-01.mp3']);
  });

  it("download prefers filename*=UTF-8''… over filename", async () => {
    mockFetch({
      'GET /v1/history': () => jsonResponse({ history: [mk('h1', 'Hello')], has_more: false, last_history_item_id: 'h1' }),
      'POST /v1/history/download': () =>
        new Response(new Blob(['ID3'], { type: 'audio/mpeg' }), {
          headers: {
            'Content-Type': 'audio/mpeg',
            'Content-Disposition': `attachment; filename="Timbre_Zoe.mp3"; filename*=UTF-8''Timbre_Zo%C3%AB_%C3%A9t%C3%A9.mp3`,
          },
        }),
    });
    if (!URL.createObjectURL) (URL as unknown as { createObjectURL: () => string }).createObjectURL = () => 'blob:x';
    const names: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    const user = userEvent.setup();
    renderPanel();
    const row = await screen.findByTestId('history-item');
    await user.click(within(row).getByRole('button', { name: 'Download' }));
    await waitFor(() => expect(names).toEqual(['Timbre_Zoë_été.mp3']));
  });

  it('thumbs-up on a long text submits without the dialog', async () => {
    const { calls } = mockFetch({
      'GET /v1/history': () =>
        jsonResponse({ history: [mk('h1', 'x'.repeat(401))], has_more: false, last_history_item_id: 'h1' }),
      'POST /v1/history/h1/feedback': () => jsonResponse({ status: 'ok' }),
    });
    const user = userEvent.setup();
    renderPanel();
    const row = await screen.findByTestId('history-item');
    await user.click(within(row).getByRole('button', { name: 'Thumbs up' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});

describe('history panel: editor and feedback state', () => {
  it('hands a picked item to the editor', async () => {
    mockFetch({ 'GET /v1/history': () => jsonResponse({ history: [mk('h1', 'Bring me back')], has_more: false, last_history_item_id: 'h1' }) });
    const onOpen = vi.fn();
    renderWithProviders(<HistoryPanel onOpen={onOpen} />, { player: new PlayerStore() });
    await userEvent.click(await screen.findByRole('button', { name: /Load into the editor: Bring me back/ }));
    expect(onOpen).toHaveBeenCalledWith(expect.objectContaining({ history_item_id: 'h1', text: 'Bring me back', voice_id: 'v1' }));
  });

  it('shows a pressed thumb differently from an unpressed one', async () => {
    const liked = { ...mk('h1', 'Liked'), feedback: { thumbs_up: true, feedback: '', emotions: false, inaccurate_clone: false, glitches: false, audio_quality: false, other: false, review_status: 'not_reviewed' } } as HistoryItem;
    mockFetch({ 'GET /v1/history': () => jsonResponse({ history: [liked, mk('h2', 'Plain')], has_more: false, last_history_item_id: 'h2' }) });
    renderWithProviders(<HistoryPanel />, { player: new PlayerStore() });
    const [likedRow, plainRow] = await screen.findAllByTestId('history-item');
    const up = within(likedRow!).getByRole('button', { name: 'Thumbs up' });
    const plainUp = within(plainRow!).getByRole('button', { name: 'Thumbs up' });
    expect(up).toHaveAttribute('aria-pressed', 'true');
    expect(plainUp).toHaveAttribute('aria-pressed', 'false');
    expect(up.className).toContain('bg-emerald-100');
    expect(up.className).not.toContain('text-gray-600');
    expect(plainUp.className).toContain('text-gray-600');
    expect(plainUp.className).not.toContain('bg-emerald-100');
  });
});
