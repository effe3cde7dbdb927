import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { soundFileName, variationSeeds } from '../api';
import { SoundEffectsPage, type SoundEffectsTab } from './SoundEffectsPage';

const historyItem = (id: string, text: string) => ({
  sound_generation_history_item_id: id,
  text,
  settings: {
    loop: false,
    duration_seconds: 2,
    prompt_influence: 0.3,
    model_id: 'eleven_text_to_sound_v2',
    seed: 7,
    output_format: 'mp3_44100_128',
    engine: 'procedural',
    recipes: ['door_creak', 'door_slam'],
  },
  duration_seconds: 2,
  format: 'mp3_44100_128',
  content_type: 'audio/mpeg',
  created_at_unix: 1_700_000_000,
  download_url: `/v1/sound-generation/history/${id}/audio`,
});

const catalogue = {
  categories: [
    { category_id: 'nature', name: 'Nature & weather', count: 1 },
    { category_id: 'foley', name: 'Foley', count: 1 },
  ],
  prompts: [
    {
      prompt_id: 'storm',
      title: 'Thunderstorm',
      text: 'heavy rain with distant thunder',
      category: 'nature',
      duration_seconds: 8,
      loop: false,
      recipes: ['rain', 'thunder'],
      preview_url: '/v1/sound-generation/explore/storm/audio',
    },
  ],
};

function render(tab: SoundEffectsTab, route = `/app/sound-effects/${tab}`, path = '*') {
  const onGenerated = vi.fn();
  const utils = renderWithProviders(<SoundEffectsPage tab={tab} onGenerated={onGenerated} />, {
    route,
    path,
    // Explore's "Use this prompt" opens the generator.
    extraRoutes: tab === 'explore' ? [{ path: '/app/sound-effects/generate', element: <SoundEffectsPage tab="generate" /> }] : [],
  });
  return { ...utils, onGenerated };
}

afterEach(() => vi.unstubAllGlobals());
// The shared machine is slow under load: wait longer for the page's answers than the default second.
configure({ asyncUtilTimeout: 8000 });

// Generous timeouts: the machine running the suite is shared and jsdom is slow under load.
describe('SoundEffectsPage', { timeout: 20_000 }, () => {
  it('says the engine is procedural and makes four variations, each with a player and a download', async () => {
    document.cookie = 'xi_website_csrf=tok9';
    let n = 0;
    const server = mockFetch({
      'POST /v1/sound-generation': ({ body }) => {
        n++;
        const b = body as { seed: number };
        return new Response(new Blob(['ID3 mp3']), {
          status: 200,
          headers: {
            'content-type': 'audio/mpeg',
            'history-item-id': `s${n}`,
            'character-cost': '120',
            'x-timbre-sfx-recipes': 'door_creak,door_slam',
            'x-timbre-sfx-seed': String(b.seed),
          },
        });
      },
    });
    const user = userEvent.setup();
    const { onGenerated } = render('generate');
    expect(screen.getByTestId('sfx-engine-note')).toHaveTextContent(/procedural, not a neural model/);

    fireEvent.change(screen.getByLabelText('Describe the sound'), { target: { value: 'a door creaks then slams' } });
    await user.click(screen.getByLabelText('Automatic (picked for the scene)'));
    expect(screen.getByText(/About 800 credits/)).toBeInTheDocument(); // 5 s × 40 × 4
    await user.click(screen.getByLabelText('Seamless loop'));
    await user.click(screen.getByRole('button', { name: 'Generate 4 variations' }));

    const cards = await screen.findAllByTestId('sfx-variation');
    expect(cards).toHaveLength(4);
    const posts = server.calls.filter((c) => c.method === 'POST');
    expect(posts).toHaveLength(4);
    const seeds = posts.map((c) => (c.body as { seed: number }).seed);
    expect(new Set(seeds).size).toBe(4);
    expect(posts[0]!.body).toMatchObject({ text: 'a door creaks then slams', duration_seconds: 5, loop: true, prompt_influence: 0.3 });
    expect(posts[0]!.headers.get('X-CSRF-Token')).toBe('tok9');
    const first = within(cards[0]!);
    expect(first.getByLabelText('Variation 1').getAttribute('src')).toMatch(/^blob:/);
    expect(first.getByRole('link', { name: 'Download variation 1' })).toHaveAttribute('download', 'a_door_creaks_then_slams_1.mp3');
    expect(cards[0]).toHaveTextContent('Recipes: door_creak, door_slam');
    expect(onGenerated).toHaveBeenCalledTimes(1);
  });

  it('shows the server’s 422 message', async () => {
    mockFetch({
      'POST /v1/sound-generation': () =>
        jsonResponse({ detail: [{ loc: ['body', 'text'], msg: 'The text must describe a sound (it is empty).', type: 'value_error' }] }, 422),
    });
    const user = userEvent.setup();
    render('generate');
    fireEvent.change(screen.getByLabelText('Describe the sound'), { target: { value: 'x' } });
    await user.click(screen.getByRole('button', { name: 'Generate 4 variations' }));
    expect(await screen.findByText(/describe a sound/)).toHaveAttribute('role', 'alert');
    expect(screen.queryByTestId('sfx-variation')).not.toBeInTheDocument();
  });

  it('lists the history with play, download and delete', async () => {
    let items = [historyItem('s2', 'a door creaks then slams'), historyItem('s1', 'heavy rain')];
    const server = mockFetch({
      'GET /v1/sound-generation/history': () => jsonResponse({ items, has_more: false }),
      'DELETE /v1/sound-generation/history/s1': () => {
        items = items.filter((i) => i.sound_generation_history_item_id !== 's1');
        return new Response(null, { status: 204 });
      },
    });
    const user = userEvent.setup();
    render('history');
    expect(await screen.findAllByTestId('sfx-history-item')).toHaveLength(2);
    expect(screen.getByRole('link', { name: 'Download heavy rain' })).toHaveAttribute('href', '/v1/sound-generation/history/s1/audio');
    expect(screen.getByRole('link', { name: 'Download heavy rain' })).toHaveAttribute('download', soundFileName('heavy rain'));
    await user.click(screen.getByRole('button', { name: 'Play heavy rain' }));
    expect(screen.getByLabelText('Player of heavy rain')).toHaveAttribute('src', '/v1/sound-generation/history/s1/audio');
    await user.click(screen.getByRole('button', { name: 'Delete heavy rain' }));
    await user.click(await screen.findByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.getAllByTestId('sfx-history-item')).toHaveLength(1));
    expect(server.calls.some((c) => c.method === 'DELETE')).toBe(true);
  });

  it('explores by category and search, previews, and fills the generator with a prompt', async () => {
    const server = mockFetch({ 'GET /v1/sound-generation/explore': () => jsonResponse(catalogue) });
    const user = userEvent.setup();
    render('explore', '/app/sound-effects/explore/category/nature', '/app/sound-effects/explore/category/:categoryId');
    expect(await screen.findByText('Thunderstorm')).toBeInTheDocument();
    expect(server.calls[0]!.url.searchParams.get('category')).toBe('nature');
    expect(screen.getByRole('link', { name: 'Nature & weather (1)' })).toHaveAttribute('aria-current', 'page');
    await user.click(screen.getByRole('button', { name: 'Preview Thunderstorm' }));
    expect(screen.getByLabelText('Preview of Thunderstorm')).toHaveAttribute('src', '/v1/sound-generation/explore/storm/audio');
    await user.click(screen.getByRole('button', { name: 'Use the prompt of Thunderstorm' }));
    expect(await screen.findByLabelText('Describe the sound')).toHaveValue('heavy rain with distant thunder');
    expect(screen.getByText('8.0 s')).toBeInTheDocument();
  });

  it('searches the catalogue from the search route', async () => {
    const server = mockFetch({ 'GET /v1/sound-generation/explore': () => jsonResponse(catalogue) });
    render('explore', '/app/sound-effects/explore/search?q=thunder', '/app/sound-effects/explore/search');
    expect(await screen.findByText('Thunderstorm')).toBeInTheDocument();
    expect(server.calls[0]!.url.searchParams.get('search')).toBe('thunder');
    expect(server.calls[0]!.url.searchParams.has('category')).toBe(false);
    expect(screen.getByLabelText('Search prompts')).toHaveValue('thunder');
  });

  it('makes distinct consecutive seeds', () => {
    expect(variationSeeds(4, () => 0.5)).toEqual([500000000, 500000001, 500000002, 500000003]);
  });
});
