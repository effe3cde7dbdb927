import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import type { TranscriptView } from '../api';
import { SpeechToTextPage } from './SpeechToTextPage';

afterEach(() => vi.unstubAllGlobals());

const summary = {
  transcription_id: 't1',
  file_name: 'interview.mp3',
  created_at_unix: 1_700_000_000,
  audio_duration_secs: 4,
  language_code: 'eng',
  state: 'completed' as const,
  preview: 'Hello there. Hi again',
  error: '',
  edited: false,
  has_audio: true,
};

const word = (text: string, start: number, end: number, speaker: string) => ({ text, start, end, type: 'word' as const, logprob: -0.1, speaker_id: speaker });
const space = (start: number, end: number) => ({ text: ' ', start, end, type: 'spacing' as const, logprob: 0 });

const view = (names: Record<string, string> = {}, text = 'Hello there. Hi again'): TranscriptView => ({
  ...summary,
  model_id: 'scribe_v1',
  speakers: ['speaker_0', 'speaker_1'],
  speaker_names: names,
  transcript: {
    language_code: 'eng',
    language_probability: 1,
    text,
    words: [
      word(text.split(' ')[0]!, 0, 0.4, 'speaker_0'),
      space(0.4, 0.5),
      word('there.', 0.5, 1, 'speaker_0'),
      space(1, 3),
      word('Hi', 3, 3.3, 'speaker_1'),
      space(3.3, 3.4),
      word('again', 3.4, 3.9, 'speaker_1'),
    ],
  },
});

function Page({ initial }: { initial?: string }) {
  const [selected, setSelected] = useState<string | undefined>(initial);
  return <SpeechToTextPage selectedId={selected} onSelect={setSelected} />;
}

describe('SpeechToTextPage', () => {
  it('lists transcripts and opens one with labelled speakers and its audio', async () => {
    mockFetch({
      'GET /api/speech-to-text/transcripts': () =>
        jsonResponse({ transcripts: [summary, { ...summary, transcription_id: 't2', file_name: 'call.wav', state: 'processing', preview: '' }], has_more: false, next_cursor: null }),
      'GET /api/speech-to-text/transcripts/t1': () => jsonResponse(view()),
    });
    const user = userEvent.setup();
    renderWithProviders(<Page />);
    const rows = await screen.findAllByTestId('stt-transcript-row');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('interview.mp3');
    expect(rows[0]).toHaveTextContent('Hello there. Hi again');
    expect(rows[1]).toHaveTextContent('Transcribing');

    await user.click(rows[0]!);
    expect(await screen.findByTestId('stt-title')).toHaveTextContent('interview.mp3');
    expect(screen.getByTestId('stt-audio')).toHaveAttribute('src', '/api/speech-to-text/transcripts/t1/audio');
    expect(screen.getAllByTestId('stt-paragraph-speaker').map((p) => p.textContent)).toEqual(['Speaker 1 0:00', 'Speaker 2 0:03']);
    expect(screen.getAllByTestId('stt-word').map((w) => w.textContent)).toEqual(['Hello', 'there.', 'Hi', 'again']);
  });

  it('highlights the word being played and seeks to a clicked word', async () => {
    mockFetch({
      'GET /api/speech-to-text/transcripts': () => jsonResponse({ transcripts: [summary], has_more: false, next_cursor: null }),
      'GET /api/speech-to-text/transcripts/t1': () => jsonResponse(view()),
    });
    renderWithProviders(<Page initial="t1" />);
    const audio = (await screen.findByTestId('stt-audio')) as HTMLAudioElement;
    const play = vi.fn(() => Promise.resolve());
    Object.defineProperty(audio, 'play', { value: play });
    let current = 0;
    Object.defineProperty(audio, 'currentTime', { get: () => current, set: (v: number) => (current = v), configurable: true });

    fireEvent.click(screen.getByText('Hi'));
    expect(current).toBe(3);
    expect(play).toHaveBeenCalled();
    current = 3.1;
    fireEvent(audio, new Event('timeupdate'));
    await waitFor(() => expect(screen.getByText('Hi')).toHaveAttribute('aria-current', 'true'));
    current = 3.6;
    fireEvent(audio, new Event('timeupdate'));
    await waitFor(() => expect(screen.getByText('again')).toHaveAttribute('aria-current', 'true'));
    expect(screen.getByText('Hi')).not.toHaveAttribute('aria-current');
  });

  it('renames a speaker and saves edited text', async () => {
    const { calls } = mockFetch({
      'GET /api/speech-to-text/transcripts': () => jsonResponse({ transcripts: [summary], has_more: false, next_cursor: null }),
      'GET /api/speech-to-text/transcripts/t1': () => jsonResponse(view()),
      'PATCH /api/speech-to-text/transcripts/t1': ({ body }) => {
        const b = body as { text?: string; speaker_names?: Record<string, string> };
        return jsonResponse({ ...view(b.speaker_names ?? { speaker_1: 'Bo' }, b.text ?? 'Hello there. Hi again'), edited: true });
      },
    });
    const user = userEvent.setup();
    renderWithProviders(<Page initial="t1" />);
    await user.click(await screen.findByRole('button', { name: 'Rename Speaker 2' }));
    await user.type(screen.getByLabelText('Name for Speaker 2'), 'Bo');
    await user.click(within(screen.getByRole('list', { name: 'Speakers' })).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.getAllByTestId('stt-paragraph-speaker')[1]).toHaveTextContent('Bo'));
    expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ speaker_names: { speaker_1: 'Bo' } });

    await user.click(screen.getByRole('button', { name: 'Edit text' }));
    const area = screen.getByLabelText('Transcript text');
    expect(area).toHaveValue('Hello there. Hi again');
    await user.clear(area);
    await user.type(area, 'Howdy there. Hi again');
    await user.click(screen.getByRole('button', { name: 'Save text' }));
    await waitFor(() => expect(screen.getAllByTestId('stt-word')[0]).toHaveTextContent('Howdy'));
    expect(calls.filter((c) => c.method === 'PATCH')[1]?.body).toEqual({ text: 'Howdy there. Hi again' });
  });

  it('downloads an export under the server’s file name', async () => {
    mockFetch({
      'GET /api/speech-to-text/transcripts': () => jsonResponse({ transcripts: [summary], has_more: false, next_cursor: null }),
      'GET /api/speech-to-text/transcripts/t1': () => jsonResponse(view()),
      'GET /api/speech-to-text/transcripts/t1/export': ({ url }) =>
        new Response(`1\n00:00:00,000 --> 00:00:01,000\nHello there.\n`, {
          headers: { 'Content-Type': 'application/x-subrip', 'Content-Disposition': `attachment; filename="interview.${url.searchParams.get('format')}"` },
        }),
    });
    const created: Blob[] = [];
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: (b: Blob) => (created.push(b), 'blob:x'), revokeObjectURL: () => undefined }));
    const clicked: string[] = [];
    const spy = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    });
    const user = userEvent.setup();
    renderWithProviders(<Page initial="t1" />);
    await user.click(await screen.findByRole('button', { name: /SRT/ }));
    await waitFor(() => expect(clicked).toEqual(['interview.srt']));
    expect(await created[0]!.text()).toContain('Hello there.');
    spy.mockRestore();
  });

  it('deletes a transcript after confirming, and closes it', async () => {
    let deleted = false;
    const { calls } = mockFetch({
      'GET /api/speech-to-text/transcripts': () =>
        jsonResponse({ transcripts: deleted ? [] : [summary], has_more: false, next_cursor: null }),
      'GET /api/speech-to-text/transcripts/t1': () => jsonResponse(view()),
      'DELETE /v1/speech-to-text/transcripts/t1': () => {
        deleted = true;
        return jsonResponse({});
      },
    });
    const user = userEvent.setup();
    renderWithProviders(<Page initial="t1" />);
    await user.click(await screen.findByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('The transcript and its audio are deleted for good.');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Choose a transcript, or upload audio to make one.')).toBeInTheDocument();
    expect(await screen.findByText(/No transcripts yet/)).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'DELETE')).toBe(true);
  });

  it('shows a multichannel transcript by channel and its entities where they are said', async () => {
    const chan = (text: string, start: number, end: number, ch: number) => ({ ...word(text, start, end, `speaker_${ch}`), channel_index: ch });
    const text = 'Hi my card is four two. Hello';
    mockFetch({
      'GET /api/speech-to-text/transcripts': () => jsonResponse({ transcripts: [summary], has_more: false, next_cursor: null }),
      'GET /api/speech-to-text/transcripts/t1': () =>
        jsonResponse({
          ...view(),
          transcript: {
            language_code: 'eng',
            language_probability: 1,
            text,
            words: ['Hi', 'my', 'card', 'is', 'four', 'two.']
              .flatMap((t, i) => [chan(t, i * 0.5, i * 0.5 + 0.4, 0), space(i * 0.5 + 0.4, i * 0.5 + 0.5)])
              .concat([chan('Hello', 5, 5.5, 1)]),
            entities: [{ text: 'four two', entity_type: 'credit_card', start_char: 14, end_char: 22 }],
          },
        }),
    });
    renderWithProviders(<Page initial="t1" />);
    await screen.findByTestId('stt-title');
    expect(screen.getAllByTestId('stt-paragraph-speaker').map((p) => p.textContent)).toEqual(['Channel 1 0:00', 'Channel 2 0:05']);
    expect(screen.getByRole('button', { name: 'Rename Channel 2' })).toBeInTheDocument();
    const entities = within(screen.getByRole('region', { name: 'Entities' }));
    expect(entities.getByTestId('stt-entity')).toHaveTextContent('Credit card four two');
    const marked = screen.getAllByTestId('stt-word').filter((w) => w.dataset.entity === 'credit_card');
    expect(marked.map((w) => w.textContent)).toEqual(['four', 'two.']);
  });

  it('labels the roles detect_speaker_roles gives and shows redaction markers', async () => {
    mockFetch({
      'GET /api/speech-to-text/transcripts': () => jsonResponse({ transcripts: [summary], has_more: false, next_cursor: null }),
      'GET /api/speech-to-text/transcripts/t1': () =>
        jsonResponse({
          ...view(),
          speakers: ['agent', 'customer'],
          transcript: {
            language_code: 'eng',
            language_probability: 1,
            text: 'Hello. It is {CREDIT_CARD_0}',
            words: [word('Hello.', 0, 0.4, 'agent'), space(0.4, 1), word('It', 1, 1.2, 'customer'), space(1.2, 1.3), word('is', 1.3, 1.5, 'customer'), space(1.5, 1.6), word('{CREDIT_CARD_0}', 1.6, 4, 'customer')],
          },
        }),
    });
    renderWithProviders(<Page initial="t1" />);
    await screen.findByTestId('stt-title');
    expect(screen.getAllByTestId('stt-paragraph-speaker').map((p) => p.textContent)).toEqual(['Agent 0:00', 'Customer 0:01']);
    expect(screen.queryByRole('region', { name: 'Entities' })).not.toBeInTheDocument();
    expect(screen.getAllByTestId('stt-word').at(-1)).toHaveClass('font-mono');
  });
});
