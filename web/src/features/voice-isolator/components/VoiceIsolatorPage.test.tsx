import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { VoiceIsolatorPage } from './VoiceIsolatorPage';

/** A stand-in XMLHttpRequest the test drives: upload progress, the end of the upload, the answer. */
class FakeXHR {
  static last: FakeXHR | undefined;
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: FormData | undefined;
  status = 0;
  statusText = '';
  responseType = '';
  response: unknown = null;
  withCredentials = false;
  responseHeaders: Record<string, string> = {};
  upload: { onprogress?: (e: { loaded: number; total: number; lengthComputable: boolean }) => void; onload?: () => void } = {};
  onload?: () => void;
  onerror?: () => void;
  onabort?: () => void;
  constructor() {
    FakeXHR.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(k: string, v: string) {
    this.headers[k] = v;
  }
  getResponseHeader(k: string) {
    return this.responseHeaders[k.toLowerCase()] ?? null;
  }
  send(body: FormData) {
    this.body = body;
  }
  abort() {
    this.onabort?.();
  }
  progress(loaded: number, total: number) {
    act(() => this.upload.onprogress?.({ loaded, total, lengthComputable: true }));
  }
  uploaded() {
    act(() => this.upload.onload?.());
  }
  /** Answers as a browser does with responseType 'blob': the body as a Blob. */
  answer(status: number, body: BlobPart, headers: Record<string, string>) {
    this.status = status;
    this.responseHeaders = headers;
    this.response = new Blob([body], { type: headers['content-type'] });
    this.onload?.();
  }
}

const item = (id: string, title: string, created: number) => ({
  id,
  title,
  created_at_unix: created,
  format: 'mp3_44100_128',
  duration_seconds: 4.2,
  download_url: `/v1/audio-isolation/history/${id}/audio`,
  icon_url: null,
  source_video_url: null,
  supports_video: false,
  processing: false,
  video_processing_failed: false,
  preview_b64: null,
});

/** The server's history, newest first, which the page's calls change. */
function historyServer(initial: ReturnType<typeof item>[]) {
  let items = [...initial];
  const mock = mockFetch({
    'GET /v1/audio-isolation/history': () => jsonResponse({ items, has_more: false }),
    'DELETE /v1/audio-isolation/history/iso_old': () => {
      items = items.filter((i) => i.id !== 'iso_old');
      return new Response(null, { status: 204 });
    },
  });
  return { ...mock, add: (i: ReturnType<typeof item>) => (items = [i, ...items]) };
}

beforeEach(() => {
  vi.stubGlobal('XMLHttpRequest', FakeXHR);
});

afterEach(() => {
  vi.unstubAllGlobals();
  FakeXHR.last = undefined;
  Reflect.deleteProperty(navigator, 'mediaDevices');
});

describe('VoiceIsolatorPage', () => {
  it('uploads a chosen file with progress, then plays the original and the isolated voice, with a download', async () => {
    document.cookie = 'xi_website_csrf=tok123';
    const server = historyServer([item('iso_old', 'older take', 1_700_000_000)]);
    const user = userEvent.setup();
    const onIsolated = vi.fn();
    renderWithProviders(<VoiceIsolatorPage onIsolated={onIsolated} />);
    expect(screen.getByRole('heading', { name: 'Voice Isolator' })).toBeInTheDocument();
    expect(screen.getByText(/it does not separate one voice from other voices/)).toBeInTheDocument();
    await screen.findByText('older take');

    const file = new File([new Uint8Array(1000)], 'noisy interview.mp3', { type: 'audio/mpeg' });
    await user.upload(screen.getByTestId('isolator-file'), file);
    const xhr = FakeXHR.last!;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe('/v1/audio-isolation');
    expect(xhr.responseType).toBe('blob');
    expect(xhr.headers['X-CSRF-Token'] ?? xhr.headers['x-csrf-token']).toBe('tok123');
    expect((xhr.body!.get('audio') as File).name).toBe('noisy interview.mp3');

    // The original plays at once; the result's place waits.
    expect(screen.getByTestId('isolator-before')).toHaveTextContent('Original');
    expect(screen.getByText('The isolated voice will appear here.')).toBeInTheDocument();
    expect(onIsolated).not.toHaveBeenCalled();
    xhr.progress(400, 1000);
    expect(screen.getByTestId('isolator-upload-progress')).toHaveAttribute('aria-valuenow', '40');
    xhr.uploaded();
    expect(screen.getByTestId('isolator-processing-progress')).toBeInTheDocument();
    expect(screen.getByText(/Isolating the voice in noisy interview.mp3/)).toBeInTheDocument();

    server.add(item('iso_new', 'noisy interview', 1_700_000_100));
    act(() => xhr.answer(200, 'ID3 mp3 bytes', { 'content-type': 'audio/mpeg', 'history-item-id': 'iso_new', 'character-cost': '84' }));

    const after = await screen.findByTestId('isolator-after');
    expect(after).toHaveTextContent('Isolated voice');
    expect(within(after).getByTestId('isolator-after-audio').getAttribute('src')).toMatch(/^blob:/);
    const download = screen.getByTestId('isolator-download');
    expect(download).toHaveAttribute('download', 'noisy_interview_isolated.mp3');
    expect(download.getAttribute('href')).toMatch(/^blob:/);
    expect(screen.getByTestId('isolator-cost')).toHaveTextContent('Charged 84 credits.');
    expect(screen.queryByTestId('isolator-processing-progress')).not.toBeInTheDocument();
    expect(onIsolated).toHaveBeenCalledTimes(1);

    // The history is asked again and shows the new isolation first.
    await waitFor(() => expect(screen.getAllByTestId('isolator-history-item')).toHaveLength(2));
    const rows = screen.getAllByTestId('isolator-history-item');
    expect(rows[0]).toHaveTextContent('noisy interview');
    expect(rows[1]).toHaveTextContent('older take');
    expect(server.calls.filter((c) => c.url.pathname === '/v1/audio-isolation/history').length).toBeGreaterThanOrEqual(2);
  });

  it("isolates a dropped file and shows the server's reason when it is refused", async () => {
    historyServer([]);
    renderWithProviders(<VoiceIsolatorPage />);
    await screen.findByText(/No isolations yet/);
    const file = new File([new Uint8Array(10)], 'click.wav', { type: 'audio/wav' });
    fireEvent.drop(screen.getByTestId('isolator-dropzone'), { dataTransfer: { files: [file] } });
    const xhr = FakeXHR.last!;
    expect((xhr.body!.get('audio') as File).name).toBe('click.wav');
    act(() =>
      xhr.answer(
        422,
        JSON.stringify({ detail: [{ loc: ['body', 'audio'], msg: 'The audio is 40 ms long; at least 100 ms is needed.', type: 'value_error' }] }),
        { 'content-type': 'application/json' },
      ),
    );
    expect(await screen.findByRole('alert')).toHaveTextContent('click.wav: The audio is 40 ms long; at least 100 ms is needed.');
    expect(screen.queryByTestId('isolator-after')).not.toBeInTheDocument();
    expect(screen.getByText('No isolated audio for this file.')).toBeInTheDocument();
  });

  it("shows the server's own message for a failed isolation (5xx with an error body) and for quota", async () => {
    historyServer([]);
    const user = userEvent.setup();
    renderWithProviders(<VoiceIsolatorPage />);
    await user.upload(screen.getByTestId('isolator-file'), new File([new Uint8Array(10)], 'a.mp3', { type: 'audio/mpeg' }));
    act(() =>
      FakeXHR.last!.answer(401, JSON.stringify({ detail: { status: 'quota_exceeded', message: 'This request exceeds your quota of 10000 credits.' } }), {
        'content-type': 'application/json',
      }),
    );
    expect(await screen.findByRole('alert')).toHaveTextContent('a.mp3: This request exceeds your quota of 10000 credits.');

    await user.upload(screen.getByTestId('isolator-file'), new File([new Uint8Array(10)], 'b.mp3', { type: 'audio/mpeg' }));
    act(() =>
      FakeXHR.last!.answer(502, JSON.stringify({ detail: { status: 'isolation_failed', message: 'The voice isolator failed: engine stopped' } }), {
        'content-type': 'application/json',
      }),
    );
    expect(await screen.findByRole('alert')).toHaveTextContent('b.mp3: The voice isolator failed: engine stopped');
  });

  it('refuses an empty file before sending it', async () => {
    historyServer([]);
    const user = userEvent.setup();
    renderWithProviders(<VoiceIsolatorPage />);
    await user.upload(screen.getByTestId('isolator-file'), new File([], 'empty.mp3', { type: 'audio/mpeg' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('empty.mp3: The file is empty.');
    expect(FakeXHR.last).toBeUndefined();
  });

  it('plays, downloads and deletes (after confirming) a history item', async () => {
    const server = historyServer([item('iso_new', 'second', 1_700_000_100), item('iso_old', 'first', 1_700_000_000)]);
    const user = userEvent.setup();
    renderWithProviders(<VoiceIsolatorPage />);
    const rows = await screen.findAllByTestId('isolator-history-item');
    expect(rows.map((r) => r.textContent)).toEqual([expect.stringContaining('second'), expect.stringContaining('first')]);

    await user.click(screen.getByRole('button', { name: 'Play first' }));
    const player = screen.getByTestId('isolator-history-player');
    expect(within(player).getByTestId('isolator-history-player-audio')).toHaveAttribute('src', '/v1/audio-isolation/history/iso_old/audio');
    expect(screen.getByRole('link', { name: 'Download first' })).toHaveAttribute('href', '/v1/audio-isolation/history/iso_old/audio');
    expect(screen.getByRole('link', { name: 'Download first' })).toHaveAttribute('download', 'first_isolated.mp3');

    await user.click(screen.getByRole('button', { name: 'Delete first' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete this isolation?' });
    expect(server.calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.getAllByTestId('isolator-history-item')).toHaveLength(1));
    expect(screen.queryByText('first')).not.toBeInTheDocument();
    expect(screen.queryByTestId('isolator-history-player')).not.toBeInTheDocument();
    const del = server.calls.find((c) => c.method === 'DELETE')!;
    expect(del.url.pathname).toBe('/v1/audio-isolation/history/iso_old');
  });

  it('offers no recording when the browser has no getUserMedia', async () => {
    historyServer([]);
    renderWithProviders(<VoiceIsolatorPage />);
    await screen.findByText(/No isolations yet/);
    expect(screen.getByRole('button', { name: 'Choose a file' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Record' })).not.toBeInTheDocument();
  });

  it('records from the microphone and isolates the recording', async () => {
    historyServer([]);
    const track = { stop: vi.fn() };
    const stream = { getTracks: () => [track] };
    const getUserMedia = vi.fn(async () => stream);
    Object.defineProperty(navigator, 'mediaDevices', { value: { getUserMedia }, configurable: true });
    class FakeRecorder {
      static isTypeSupported = (t: string) => t === 'audio/webm;codecs=opus';
      static last: FakeRecorder | undefined;
      state: 'inactive' | 'recording' = 'inactive';
      ondataavailable?: (e: { data: Blob }) => void;
      onstop?: () => void;
      onerror?: () => void;
      constructor(
        public stream: unknown,
        public options: { mimeType: string },
      ) {
        FakeRecorder.last = this;
      }
      get mimeType() {
        return this.options.mimeType;
      }
      start() {
        this.state = 'recording';
      }
      stop() {
        this.state = 'inactive';
        this.ondataavailable?.({ data: new Blob([new Uint8Array(2000)], { type: 'audio/webm' }) });
        this.onstop?.();
      }
    }
    vi.stubGlobal('MediaRecorder', FakeRecorder);
    const user = userEvent.setup();
    renderWithProviders(<VoiceIsolatorPage />);
    await user.click(screen.getByRole('button', { name: 'Record' }));
    expect(await screen.findByTestId('isolator-recording')).toHaveTextContent('Recording');
    expect(getUserMedia).toHaveBeenCalledWith({ audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false } });
    expect(FakeRecorder.last!.options.mimeType).toBe('audio/webm;codecs=opus');
    // While recording, no other audio can be chosen.
    expect(screen.getByRole('button', { name: 'Choose a file' })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Stop and isolate' }));
    expect(track.stop).toHaveBeenCalled();
    expect(screen.queryByTestId('isolator-recording')).not.toBeInTheDocument();
    const sent = FakeXHR.last!.body!.get('audio') as File;
    expect(sent.name).toMatch(/^Recording \d{4}-\d\d-\d\d \d\d-\d\d-\d\d\.webm$/);
    expect(sent.size).toBe(2000);
    expect(screen.getByTestId('isolator-before')).toBeInTheDocument();
  });

  it('says why the microphone could not be opened', async () => {
    historyServer([]);
    const getUserMedia = vi.fn(async () => {
      throw new DOMException('Permission denied', 'NotAllowedError');
    });
    Object.defineProperty(navigator, 'mediaDevices', { value: { getUserMedia }, configurable: true });
    vi.stubGlobal('MediaRecorder', class {});
    const user = userEvent.setup();
    renderWithProviders(<VoiceIsolatorPage />);
    await user.click(screen.getByRole('button', { name: 'Record' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Microphone access was denied.');
    expect(FakeXHR.last).toBeUndefined();
  });
});
