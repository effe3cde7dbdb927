import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { VoiceLabPage } from './VoiceLabPage';

const sample = { sample_id: 's1', file_name: 'me.mp3', mime_type: 'audio/mpeg', size_bytes: 2048, hash: 'ab', duration_secs: 12 };
const voice = (id: string, name: string, category = 'cloned') => ({
  voice_id: id,
  name,
  category,
  description: 'Me reading',
  labels: {},
  preview_url: null, // workspace voices have no public preview
  samples: [sample],
});

function server(initial: ReturnType<typeof voice>[]) {
  let voices = [...initial];
  return mockFetch({
    'GET /v2/voices': () => jsonResponse({ voices, has_more: false, total_count: voices.length, next_page_token: null }),
    'DELETE /v1/voices/v1': () => {
      voices = voices.filter((v) => v.voice_id !== 'v1');
      return jsonResponse({ status: 'ok' });
    },
    'POST /v1/voices/add': ({ body }) => {
      const form = body as FormData;
      if (form.getAll('files').length === 0) return jsonResponse({ detail: [{ loc: ['body', 'files'], msg: 'Field required', type: 'missing' }] }, 422);
      voices = [voice('v9', String(form.get('name'))), ...voices];
      return jsonResponse({ voice_id: 'v9', requires_verification: false });
    },
  });
}

afterEach(() => vi.unstubAllGlobals());

describe('VoiceLabPage', () => {
  it('lists the workspace voices with their category, says what a clone is, and links to voice design', async () => {
    server([voice('v1', 'My clone'), voice('v2', 'Designed', 'generated')]);
    renderWithProviders(<VoiceLabPage />);
    const rows = await screen.findAllByTestId('voice-row');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]).getByText('My clone')).toBeTruthy();
    expect(within(rows[1]).getByText('generated')).toBeTruthy();
    expect(screen.getAllByText(/not a neural clone/).length).toBeGreaterThan(0);
    expect(screen.getByRole('link', { name: 'Design a voice' }).getAttribute('href')).toBe('/app/voice-lab/design');
    // A workspace voice has no public preview: its play button plays its recording.
    expect(within(rows[0]).getByLabelText('Preview of My clone').getAttribute('src')).toBe('/v1/voices/v1/samples/s1/audio');
  });

  it('deletes a voice after confirmation', async () => {
    const { calls } = server([voice('v1', 'My clone')]);
    const onChanged = vi.fn();
    renderWithProviders(<VoiceLabPage onChanged={onChanged} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Delete My clone' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await userEvent.click(screen.getByRole('button', { name: 'Delete voice' }));
    await waitFor(() => expect(screen.queryAllByTestId('voice-row')).toHaveLength(0));
    expect(calls.some((c) => c.method === 'DELETE' && c.url.pathname === '/v1/voices/v1')).toBe(true);
    expect(onChanged).toHaveBeenCalled();
  });

  it('clones from an uploaded file only with a name and the consent checked', async () => {
    const { calls } = server([]);
    renderWithProviders(<VoiceLabPage />, { extraRoutes: [{ path: '/app/voice-lab/:id', element: <p>voice page</p> }] });
    await screen.findByText(/No voices of your own yet/);
    await userEvent.click(screen.getByRole('button', { name: /Add voice/ }));
    await userEvent.upload(screen.getByTestId('clone-files'), new File([new Uint8Array(4096)], 'me.mp3', { type: 'audio/mpeg' }));
    expect(screen.getByText('me.mp3')).toBeTruthy();
    await userEvent.click(screen.getByTestId('clone-submit'));
    expect(await screen.findByText(/Give the voice a name/)).toBeTruthy();
    expect(screen.getByText(/right to clone/)).toBeTruthy();
    expect(calls.some((c) => c.url.pathname === '/v1/voices/add')).toBe(false);

    await userEvent.type(screen.getByLabelText('Name'), 'Me');
    await userEvent.click(screen.getByTestId('clone-consent'));
    await userEvent.click(screen.getByTestId('clone-submit'));
    await screen.findByText('voice page');
    const add = calls.find((c) => c.url.pathname === '/v1/voices/add');
    const form = add?.body as FormData;
    expect(form.get('name')).toBe('Me');
    expect((form.get('files') as File).name).toBe('me.mp3');
    expect(form.get('remove_background_noise')).toBeNull();
  });

  it("shows the server's error", async () => {
    mockFetch({
      'GET /v2/voices': () => jsonResponse({ voices: [], has_more: false, total_count: 0, next_page_token: null }),
      'POST /v1/voices/add': () =>
        jsonResponse({ detail: { status: 'voice_limit_reached', message: 'You have reached your maximum amount of custom voices (10 / 10) on the Starter plan.' } }, 400),
    });
    renderWithProviders(<VoiceLabPage />);
    await userEvent.click(await screen.findByRole('button', { name: /Add voice/ }));
    await userEvent.upload(screen.getByTestId('clone-files'), new File([new Uint8Array(4096)], 'me.mp3', { type: 'audio/mpeg' }));
    await userEvent.type(screen.getByLabelText('Name'), 'Me');
    await userEvent.click(screen.getByTestId('clone-consent'));
    await userEvent.click(screen.getByTestId('clone-submit'));
    expect((await screen.findByRole('alert')).textContent).toMatch(/10 \/ 10/);
  });
});
