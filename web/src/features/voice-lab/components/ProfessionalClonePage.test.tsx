import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { ProfessionalClonePage } from './ProfessionalClonePage';

const sample = { sample_id: 's1', file_name: 'me.mp3', mime_type: 'audio/mpeg', size_bytes: 2048, hash: 'ab', duration_secs: 12 };

function server() {
  let separation = 'not_started';
  let trainingPolls = 0;
  return mockFetch({
    'POST /v1/voices/pvc': () => jsonResponse({ voice_id: 'p1' }),
    'POST /v1/voices/pvc/p1/samples': () => jsonResponse([sample]),
    'GET /v1/voices/pvc/p1/samples/s1/waveform': () => jsonResponse({ sample_id: 's1', visual_waveform: [0.1, 0.5, 0.9, 0.4] }),
    'GET /v1/voices/pvc/p1/samples/s1/speakers': () =>
      jsonResponse(
        separation === 'completed'
          ? {
              voice_id: 'p1',
              sample_id: 's1',
              status: 'completed',
              speakers: {
                speaker_0: { speaker_id: 'speaker_0', duration_secs: 8.5, utterances: [{ start: 0, end: 8.5 }] },
                speaker_1: { speaker_id: 'speaker_1', duration_secs: 2, utterances: [{ start: 9, end: 11 }] },
              },
              selected_speaker_ids: ['speaker_0', 'speaker_1'],
            }
          : { voice_id: 'p1', sample_id: 's1', status: separation },
      ),
    'POST /v1/voices/pvc/p1/samples/s1/separate-speakers': () => {
      separation = 'completed';
      return jsonResponse({ status: 'ok' });
    },
    'POST /v1/voices/pvc/p1/samples/s1': () => jsonResponse({ voice_id: 'p1' }),
    'GET /v1/voices/pvc/p1/captcha': () => jsonResponse({ text: 'The birch canoe slid on the smooth planks.' }),
    'POST /v1/voices/pvc/p1/train': () => jsonResponse({ status: 'ok' }),
    'GET /v1/voices/p1': () => {
      trainingPolls++;
      const done = trainingPolls > 1;
      return jsonResponse({
        voice_id: 'p1',
        name: 'Pro',
        category: 'professional',
        fine_tuning: {
          is_allowed_to_fine_tune: true,
          state: { eleven_multilingual_v2: done ? 'fine_tuned' : 'fine_tuning' },
          progress: { eleven_multilingual_v2: done ? 1 : 0.4 },
          verification_failures: [],
          verification_attempts_count: 1,
          manual_verification_requested: false,
        },
      });
    },
  });
}

afterEach(() => vi.unstubAllGlobals());

describe('ProfessionalClonePage', () => {
  it('creates the voice, uploads a sample with its waveform, trims it, separates speakers and picks one', async () => {
    const { calls } = server();
    renderWithProviders(<ProfessionalClonePage />);
    expect(screen.getAllByText(/not a neural fine-tune/).length).toBeGreaterThan(0);
    await userEvent.type(screen.getByLabelText('Name'), 'Pro');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await screen.findByText('Created Pro.');
    const create = calls.find((c) => c.method === 'POST' && c.url.pathname === '/v1/voices/pvc');
    expect(create?.body).toEqual({ name: 'Pro', language: 'en' });

    await userEvent.upload(screen.getByTestId('pvc-files'), new File([new Uint8Array(4096)], 'me.mp3', { type: 'audio/mpeg' }));
    await screen.findByText('me.mp3');
    expect(await screen.findByRole('img', { name: 'Waveform' })).toBeTruthy();
    expect(document.querySelectorAll('rect')).toHaveLength(4);

    const end = screen.getByLabelText('Trim end (ms)');
    await userEvent.clear(end);
    await userEvent.type(end, '9000');
    await userEvent.click(screen.getByRole('button', { name: 'Save trim' }));
    await waitFor(() => expect(calls.some((c) => c.url.pathname === '/v1/voices/pvc/p1/samples/s1' && (c.body as { trim_end_time?: number })?.trim_end_time === 9000)).toBe(true));

    await userEvent.click(screen.getByRole('button', { name: 'Separate speakers' }));
    const second = await screen.findByLabelText(/speaker_1/);
    await userEvent.click(second);
    await waitFor(() =>
      expect(calls.some((c) => c.url.pathname === '/v1/voices/pvc/p1/samples/s1' && JSON.stringify(c.body) === JSON.stringify({ selected_speaker_ids: ['speaker_0'] }))).toBe(true),
    );
    expect(screen.getByTestId('separation-status').textContent).toContain('completed');

    await userEvent.click(screen.getByRole('button', { name: 'Show the sentence to read' }));
    expect((await screen.findByTestId('captcha-text')).textContent).toBe('The birch canoe slid on the smooth planks.');
  });
});
