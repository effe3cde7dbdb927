import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { convertedFileName } from '../api';
import { SpeechToSpeechPage } from './SpeechToSpeechPage';

const voice = (voice_id: string, name: string) => ({ voice_id, name, category: 'premade', labels: {} });

const historyItem = (id: string, text: string) => ({
  history_item_id: id,
  request_id: 'req_' + id,
  voice_id: 'v_rachel',
  model_id: 'eleven_multilingual_sts_v2',
  voice_name: 'Rachel',
  voice_category: 'premade',
  text,
  date_unix: 1_700_000_000,
  character_count_change_from: 0,
  character_count_change_to: 100,
  content_type: 'audio/mpeg',
  state: 'created',
  settings: null,
  feedback: null,
  share_link_id: null,
  source: 'STS',
  alignments: null,
  dialogue: null,
  output_format: 'mp3_44100_128',
});

/** The server: two voices, a history that a conversion adds to, and the conversion itself. */
function server(convert: (form: FormData, url: URL) => Response) {
  let items = [historyItem('h_old', 'old take')];
  return mockFetch({
    'GET /v2/voices': () => jsonResponse({ voices: [voice('v_rachel', 'Rachel'), voice('v_adam', 'Adam')], has_more: false, total_count: 2 }),
    'GET /v1/history': ({ url }) => {
      expect(url.searchParams.get('source')).toBe('STS');
      return jsonResponse({ history: items, has_more: false, last_history_item_id: null, scanned_until: null });
    },
    'POST /v1/speech-to-speech/v_adam': ({ url, body }) => {
      items = [historyItem('h_new', 'my take'), ...items];
      return convert(body as FormData, url);
    },
  });
}

beforeEach(() => {
  let n = 0;
  vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: () => `blob:test/${++n}`, revokeObjectURL: () => undefined }));
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('SpeechToSpeechPage', () => {
  it('uploads a recording, converts it to the chosen voice, plays and offers it for download, and lists the history', async () => {
    document.cookie = 'xi_website_csrf=tok123';
    let sent: FormData | undefined;
    let query: URL | undefined;
    const { calls } = server((form, url) => {
      sent = form;
      query = url;
      return new Response(new Blob([new Uint8Array(64)], { type: 'audio/mpeg' }), {
        status: 200,
        headers: { 'content-type': 'audio/mpeg', 'history-item-id': 'h_new', 'character-cost': '100' },
      });
    });
    const onConverted = vi.fn();
    const user = userEvent.setup();
    renderWithProviders(<SpeechToSpeechPage onConverted={onConverted} />);
    expect(screen.getByRole('heading', { name: 'Speech to Speech' })).toBeInTheDocument();
    expect(screen.getByText(/not with a neural model/)).toBeInTheDocument();
    await screen.findByText('old take');
    expect(screen.getByTestId('sts-convert')).toBeDisabled(); // no recording yet

    await user.upload(screen.getByTestId('sts-file'), new File([new Uint8Array(2000)], 'my take.webm', { type: 'audio/webm' }));
    expect(screen.getByTestId('sts-source')).toHaveAttribute('src', 'blob:test/1');
    await waitFor(() => expect(screen.getByTestId('sts-voice')).toHaveValue('v_rachel'));
    await user.selectOptions(screen.getByTestId('sts-voice'), 'v_adam');
    await user.click(screen.getByLabelText('Remove background noise'));
    await user.click(screen.getByTestId('sts-convert'));

    const result = await screen.findByTestId('sts-result');
    expect(result).toHaveAttribute('src', 'blob:test/2');
    expect(screen.getByTestId('sts-download')).toHaveAttribute('download', 'my_take_Adam.mp3');
    expect(screen.getByTestId('sts-cost')).toHaveTextContent('Charged 100 credits.');
    expect(onConverted).toHaveBeenCalledTimes(1);
    expect(query?.searchParams.get('output_format')).toBe('mp3_44100_128');
    expect((sent?.get('audio') as File).name).toBe('my take.webm');
    expect(sent?.get('model_id')).toBe('eleven_multilingual_sts_v2');
    expect(sent?.get('remove_background_noise')).toBe('true');
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.headers.get('X-CSRF-Token')).toBe('tok123');

    // The history was fetched again and shows the new conversion first, playable.
    const list = screen.getByTestId('sts-history');
    await within(list).findByText('my take');
    expect(within(list).getByLabelText('Play my take')).toHaveAttribute('src', '/v1/history/h_new/audio');
  });

  it("shows the server's message when the conversion is refused, and refuses an empty file before sending", async () => {
    server(() =>
      jsonResponse(
        { detail: [{ loc: ['body', 'audio'], msg: 'The recording needs at least 1 s of voiced speech to take another voice.', type: 'value_error' }] },
        422,
      ),
    );
    const user = userEvent.setup();
    renderWithProviders(<SpeechToSpeechPage />);
    await screen.findByText('old take');
    await user.upload(screen.getByTestId('sts-file'), new File([], 'empty.wav', { type: 'audio/wav' }));
    expect(screen.getByRole('alert')).toHaveTextContent('empty.wav: The file is empty.');
    expect(screen.getByTestId('sts-convert')).toBeDisabled();

    await user.upload(screen.getByTestId('sts-file'), new File([new Uint8Array(10)], 'cough.wav', { type: 'audio/wav' }));
    await waitFor(() => expect(screen.getByTestId('sts-voice')).toHaveValue('v_rachel'));
    await user.selectOptions(screen.getByTestId('sts-voice'), 'v_adam');
    await user.click(screen.getByTestId('sts-convert'));
    expect(await screen.findByRole('alert')).toHaveTextContent('cough.wav: The recording needs at least 1 s of voiced speech');
    expect(screen.queryByTestId('sts-result')).not.toBeInTheDocument();
  });
});

describe('convertedFileName', () => {
  it('joins the recording and the voice without extension or unsafe characters', () => {
    expect(convertedFileName('folder/My: take?.webm'.split('/').pop()!, 'Rachel Green')).toBe('My_take_Rachel_Green.mp3');
    expect(convertedFileName('', '')).toBe('recording_voice.mp3');
  });
});
