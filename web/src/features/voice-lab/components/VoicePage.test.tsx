import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { VoicePage } from './VoicePage';

const sample = (id: string, name: string) => ({ sample_id: id, file_name: name, mime_type: 'audio/mpeg', size_bytes: 4096, hash: 'ab', duration_secs: 65 });

function server() {
  let voice = {
    voice_id: 'v1',
    name: 'My clone',
    category: 'cloned',
    description: 'Me reading',
    labels: {},
    preview_url: null,
    settings: { stability: 0.5, similarity_boost: 0.75, style: 0, use_speaker_boost: true, speed: 1 },
    samples: [sample('s1', 'one.mp3'), sample('s2', 'two.mp3')],
  };
  return mockFetch({
    'GET /v1/voices/v1': () => jsonResponse(voice),
    'DELETE /v1/voices/v1/samples/s1': () => {
      voice = { ...voice, samples: voice.samples.filter((s) => s.sample_id !== 's1') };
      return jsonResponse({ status: 'ok' });
    },
    'POST /v1/voices/v1/edit': ({ body }) => {
      const form = body as FormData;
      const added = form.getAll('files') as File[];
      voice = { ...voice, name: String(form.get('name')), samples: [...voice.samples, ...added.map((f, i) => sample(`n${i}`, f.name))] };
      return jsonResponse({ status: 'ok' });
    },
    'POST /v1/text-to-speech/v1': () => new Response(new Uint8Array([0xff, 0xfb, 0, 0]), { headers: { 'Content-Type': 'audio/mpeg' } }),
  });
}

afterEach(() => vi.unstubAllGlobals());

describe('VoicePage', () => {
  it('lists the samples with players, says what the clone is, deletes a sample after confirmation', async () => {
    const { calls } = server();
    renderWithProviders(<VoicePage voiceId="v1" />);
    const rows = await screen.findAllByTestId('sample-row');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]).getByText('1:05 · 4 KB')).toBeTruthy();
    expect(within(rows[0]).getByLabelText('Play one.mp3').getAttribute('src')).toBe('/v1/voices/v1/samples/s1/audio');
    expect(screen.getByText(/not a neural clone/)).toBeTruthy();
    await userEvent.click(within(rows[0]).getByRole('button', { name: 'Delete one.mp3' }));
    await userEvent.click(screen.getByRole('button', { name: 'Delete recording' }));
    await waitFor(() => expect(screen.getAllByTestId('sample-row')).toHaveLength(1));
    expect(calls.some((c) => c.method === 'DELETE' && c.url.pathname === '/v1/voices/v1/samples/s1')).toBe(true);
    // The last recording cannot be deleted.
    expect((within(screen.getByTestId('sample-row')).getByRole('button', { name: 'Delete two.mp3' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('renames the voice and adds recordings through edit', async () => {
    const { calls } = server();
    renderWithProviders(<VoicePage voiceId="v1" />);
    const name = await screen.findByLabelText('Name');
    await userEvent.clear(name);
    await userEvent.type(name, 'Renamed');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.some((c) => c.url.pathname === '/v1/voices/v1/edit')).toBe(true));
    await userEvent.upload(screen.getByTestId('add-samples'), new File([new Uint8Array(2048)], 'three.mp3', { type: 'audio/mpeg' }));
    await waitFor(() => expect(screen.getAllByTestId('sample-row')).toHaveLength(3));
    const edits = calls.filter((c) => c.url.pathname === '/v1/voices/v1/edit');
    expect((edits[0].body as FormData).get('name')).toBe('Renamed');
    expect(((edits[1].body as FormData).get('files') as File).name).toBe('three.mp3');
  });

  it('speaks a line in the voice', async () => {
    const { calls } = server();
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: () => 'blob:voice', revokeObjectURL: () => undefined }));
    renderWithProviders(<VoicePage voiceId="v1" />);
    await userEvent.click(await screen.findByRole('button', { name: 'Speak' }));
    expect((await screen.findByTestId('try-audio')).getAttribute('src')).toBe('blob:voice');
    const tts = calls.find((c) => c.url.pathname === '/v1/text-to-speech/v1');
    expect((tts?.body as { text: string }).text).toMatch(/cloned voice/);
  });
});
