import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
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

  it('sends the chosen options; roles need diarization and multichannel excludes it', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXHR);
    const user = userEvent.setup();
    renderWithProviders(<UploadPanel onTranscribed={vi.fn()} />);
    const roles = screen.getByLabelText('Agent and customer');
    expect(roles).toBeDisabled();
    await user.click(screen.getByLabelText('Tell speakers apart'));
    expect(roles).toBeEnabled();
    await user.click(roles);
    await user.type(screen.getByLabelText('Number of speakers'), '2');
    await user.selectOptions(screen.getByLabelText('Find entities'), 'pci');
    await user.click(screen.getByLabelText('Redact them'));
    await user.selectOptions(screen.getByLabelText('Marker'), 'redacted');
    await user.type(screen.getByLabelText('Keyterms'), 'Timbre{Enter}Harvard sentences');

    const file = new File([new Uint8Array(10)], 'call.wav', { type: 'audio/wav' });
    fireEvent.change(screen.getByLabelText('Audio file'), { target: { files: [file] } });
    const body = FakeXHR.last!.body!;
    expect(body.get('diarize')).toBe('true');
    expect(body.get('num_speakers')).toBe('2');
    expect(body.get('detect_speaker_roles')).toBe('true');
    expect(body.get('entity_detection')).toBe('pci');
    expect(body.get('entity_redaction')).toBe('pci');
    expect(body.get('entity_redaction_mode')).toBe('redacted');
    expect(body.getAll('keyterms')).toEqual(['Timbre', 'Harvard sentences']);
    expect(body.get('use_multi_channel')).toBeNull();
    FakeXHR.last!.answer(200, { transcription_id: 't1', text: '', words: [], language_code: 'eng', language_probability: 1 });
    await waitFor(() => expect(screen.getByLabelText('Tell speakers apart')).toBeEnabled());

    // Channels as speakers: diarization and roles are switched off and not sent.
    await user.click(screen.getByLabelText('Each channel is a speaker'));
    expect(screen.getByLabelText('Tell speakers apart')).toBeDisabled();
    expect(screen.getByLabelText('Agent and customer')).toBeDisabled();
    await user.selectOptions(screen.getByLabelText('Channels in the result'), 'combined');
    expect(screen.getByLabelText('Find entities')).toBeDisabled();
    fireEvent.change(screen.getByLabelText('Audio file'), { target: { files: [file] } });
    const second = FakeXHR.last!.body!;
    expect(second.get('use_multi_channel')).toBe('true');
    expect(second.get('multichannel_output_style')).toBe('combined');
    expect(second.get('diarize')).toBeNull();
    expect(second.get('detect_speaker_roles')).toBeNull();
    expect(second.get('entity_detection')).toBeNull();
  });

  it('refuses to upload with options the API would refuse, saying which', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXHR);
    const user = userEvent.setup();
    renderWithProviders(<UploadPanel onTranscribed={vi.fn()} />);
    await user.type(screen.getByLabelText('Keyterms'), 'one two three four five six');
    expect(screen.getByText(/is too long/)).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('Audio file'), { target: { files: [new File([new Uint8Array(10)], 'a.wav')] } });
    expect(await screen.findByRole('alert')).toHaveTextContent('Check the options first');
    expect(FakeXHR.last).toBeUndefined();
  });
});
