import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/test/utils';
import { UploadPanel } from './UploadPanel';

/** A stand-in XMLHttpRequest the test drives: upload progress, the end of the upload, the answer. */
class FakeXHR {
  static last: FakeXHR | undefined;
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: FormData | undefined;
  status = 0;
  statusText = '';
  responseText = '';
  withCredentials = false;
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
  send(body: FormData) {
    this.body = body;
  }
  abort() {
    this.onabort?.();
  }
  answer(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
  }
}

afterEach(() => {
  vi.unstubAllGlobals();
  FakeXHR.last = undefined;
  document.cookie = 'xi_website_csrf=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
});

describe('UploadPanel', () => {
  it('uploads a dropped file with progress, then transcribes', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXHR);
    document.cookie = 'xi_website_csrf=tok123';
    const onTranscribed = vi.fn();
    renderWithProviders(<UploadPanel onTranscribed={onTranscribed} />);
    const file = new File([new Uint8Array(1000)], 'meeting.mp3', { type: 'audio/mpeg' });
    fireEvent.drop(screen.getByTestId('stt-dropzone'), { dataTransfer: { files: [file] } });

    const xhr = FakeXHR.last!;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe('/v1/speech-to-text');
    expect(xhr.headers['X-CSRF-Token']).toBe('tok123');
    expect(xhr.body?.get('model_id')).toBe('scribe_v1');
    expect((xhr.body?.get('file') as File).name).toBe('meeting.mp3');

    xhr.upload.onprogress?.({ loaded: 400, total: 1000, lengthComputable: true });
    await waitFor(() => expect(screen.getByTestId('stt-upload-progress')).toHaveAttribute('aria-valuenow', '40'));
    expect(screen.getByText('Uploading meeting.mp3…')).toBeInTheDocument();

    xhr.upload.onload?.();
    expect(await screen.findByText('Transcribing meeting.mp3…')).toBeInTheDocument();
    expect(screen.getByTestId('stt-transcription-progress')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Choose a file' })).toBeDisabled();

    xhr.answer(200, { transcription_id: 't1', text: 'Hello.', words: [], language_code: 'eng', language_probability: 1 });
    await waitFor(() => expect(onTranscribed).toHaveBeenCalledWith(expect.objectContaining({ transcription_id: 't1' })));
    expect(screen.queryByText(/Transcribing/)).not.toBeInTheDocument();
  });

  it('shows the server’s reason when the file is refused', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXHR);
    renderWithProviders(<UploadPanel onTranscribed={vi.fn()} />);
    const file = new File([new Uint8Array(10)], 'notes.txt', { type: 'text/plain' });
    fireEvent.change(screen.getByLabelText('Audio file'), { target: { files: [file] } });
    FakeXHR.last!.answer(422, {
      detail: [{ loc: ['body', 'file'], msg: 'The file is not audio or video that can be decoded (or it is corrupt).', type: 'value_error' }],
    });
    expect(await screen.findByRole('alert')).toHaveTextContent('notes.txt: The file is not audio or video');
    expect(screen.getByRole('button', { name: 'Choose a file' })).toBeEnabled();
  });
});
