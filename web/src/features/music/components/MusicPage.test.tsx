import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { MusicPage } from './MusicPage';

const plan = {
  positive_global_styles: ['jazz', 'D minor', '140 bpm', 'saxophone'],
  negative_global_styles: ['vocals'],
  sections: [
    { section_name: 'Intro', positive_local_styles: ['soft'], negative_local_styles: [], duration_ms: 6000, lines: [] },
    { section_name: 'Chorus', positive_local_styles: ['full'], negative_local_styles: [], duration_ms: 9000, lines: [] },
  ],
};

const song = (id: string) => ({
  song_id: id,
  title: 'A jazz tune',
  prompt: 'A jazz tune',
  composition_plan: plan,
  seed: 7,
  engine: 'fluidsynth',
  duration_ms: 15000,
  output_format: 'mp3_44100_128',
  character_cost: 250,
  created_at_unix: 1_700_000_000,
  download_url: `/v1/music/history/${id}/audio`,
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('MusicPage', () => {
  it('writes a plan, lets it be edited, composes from it and plays the song with a download; the history lists it', async () => {
    let songs: ReturnType<typeof song>[] = [];
    const server = mockFetch({
      'GET /v1/music/history': () => jsonResponse({ items: songs, has_more: false }),
      'POST /v1/music/plan': () => jsonResponse(plan),
      'POST /v1/music': () => {
        songs = [song('song1')];
        return new Response(new Blob(['ID3 fake mp3']), { status: 200, headers: { 'Content-Type': 'audio/mpeg', 'song-id': 'song1', 'character-cost': '250' } });
      },
    });
    const onComposed = vi.fn();
    const user = userEvent.setup();
    renderWithProviders(<MusicPage onComposed={onComposed} />);
    expect(screen.getByText(/algorithmic, not a neural model/)).toBeInTheDocument();
    expect(await screen.findByText('No songs yet.')).toBeInTheDocument();

    await user.type(screen.getByLabelText('Describe the music'), 'A jazz tune');
    await user.clear(screen.getByLabelText('Length (s)'));
    await user.type(screen.getByLabelText('Length (s)'), '15');
    await user.click(screen.getByRole('button', { name: 'Write a plan' }));
    const planCall = server.calls.find((c) => c.url.pathname === '/v1/music/plan');
    expect(planCall?.body).toEqual({ prompt: 'A jazz tune', music_length_ms: 15000 });

    // The editor: two sections; add one, move it up, rename it, remove the intro.
    expect(await screen.findAllByTestId('plan-section')).toHaveLength(2);
    expect(screen.getByTestId('plan-total')).toHaveTextContent('2 sections');
    await user.click(screen.getByRole('button', { name: 'Add a section' }));
    expect(screen.getAllByTestId('plan-section')).toHaveLength(3);
    await user.click(screen.getByRole('button', { name: 'Move Section 3 up' }));
    const names = () => screen.getAllByLabelText('Section name').map((i) => (i as HTMLInputElement).value);
    expect(names()).toEqual(['Intro', 'Section 3', 'Chorus']);
    await user.clear(screen.getAllByLabelText('Section name')[1]);
    await user.type(screen.getAllByLabelText('Section name')[1], 'Bridge');
    await user.click(screen.getByRole('button', { name: 'Remove Intro' }));
    expect(names()).toEqual(['Bridge', 'Chorus']);
    // Global styles are edited as a list: the tempo changes.
    const styles = screen.getByLabelText(/^Styles \(comma-separated/);
    await user.clear(styles);
    await user.type(styles, 'jazz, D minor, 120 bpm');
    await user.tab();
    await user.type(screen.getByLabelText('Seed (optional)'), '7');

    await user.click(screen.getByRole('button', { name: 'Compose from the plan' }));
    expect(await screen.findByTestId('music-charged')).toHaveTextContent('Charged 250 credits.');
    const compose = server.calls.find((c) => c.method === 'POST' && c.url.pathname === '/v1/music');
    expect(compose?.url.searchParams.get('output_format')).toBe('mp3_44100_128');
    const body = compose?.body as { composition_plan: typeof plan; seed: number };
    expect(body.seed).toBe(7);
    expect(body.composition_plan.positive_global_styles).toEqual(['jazz', 'D minor', '120 bpm']);
    expect(body.composition_plan.sections.map((s) => [s.section_name, s.duration_ms])).toEqual([
      ['Bridge', 8000],
      ['Chorus', 9000],
    ]);
    expect(screen.getByTestId('music-download')).toHaveAttribute('download', 'a_jazz_tune.mp3');
    expect(onComposed).toHaveBeenCalled();
    const history = await screen.findByRole('list', { name: 'Music history' });
    expect(within(history).getByText('A jazz tune')).toBeInTheDocument();
    expect(within(history).getByRole('link', { name: 'Download A jazz tune' })).toHaveAttribute('href', '/v1/music/history/song1/audio');
  });

  it('shows the server’s refusal naming the field (lyrics on a server that cannot sing them)', async () => {
    mockFetch({
      'GET /v1/music/history': () => jsonResponse({ items: [], has_more: false }),
      'POST /v1/music/plan': () => jsonResponse(plan),
      'POST /v1/music': () =>
        jsonResponse(
          { detail: [{ loc: ['body', 'composition_plan', 'sections', 0, 'lines', 0], msg: 'it cannot sing lyrics', type: 'value_error' }] },
          422,
        ),
    });
    const user = userEvent.setup();
    renderWithProviders(<MusicPage />);
    await user.type(screen.getByLabelText('Describe the music'), 'a song');
    await user.click(screen.getByRole('button', { name: 'Write a plan' }));
    await user.type((await screen.findAllByLabelText('Lyrics (one line per row)'))[0], 'la la la');
    await user.click(screen.getByRole('button', { name: 'Compose from the plan' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('composition_plan › sections › 0 › lines › 0: it cannot sing lyrics');
  });

  it('refuses a plan whose section is too short before sending it', async () => {
    mockFetch({
      'GET /v1/music/history': () => jsonResponse({ items: [], has_more: false }),
      'POST /v1/music/plan': () => jsonResponse(plan),
    });
    const user = userEvent.setup();
    renderWithProviders(<MusicPage />);
    await user.type(screen.getByLabelText('Describe the music'), 'a song');
    await user.click(screen.getByRole('button', { name: 'Write a plan' }));
    const dur = (await screen.findAllByLabelText('Seconds'))[0];
    await user.clear(dur);
    await user.type(dur, '1');
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('a section lasts 3 to 120 s'));
    expect(screen.getByRole('button', { name: 'Compose from the plan' })).toBeDisabled();
  });
});
