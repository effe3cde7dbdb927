import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '@/lib/api';
import { uploadWithProgress, type ProgressHooks } from '@/lib/upload';
import { DropZone } from './DropZone';
import { UploadProgress } from './UploadProgress';
import { useUpload } from './useUpload';

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
  answer(status: number, text: string) {
    this.status = status;
    this.statusText = status === 200 ? 'OK' : 'Error';
    this.responseText = text;
    this.response = this.responseType === 'blob' ? new Blob([text]) : text;
    this.onload?.();
  }
}

afterEach(() => {
  vi.unstubAllGlobals();
  FakeXHR.last = undefined;
  document.cookie = 'xi_website_csrf=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
});

const file = (name = 'a.wav', size = 10) => new File([new Uint8Array(size)], name, { type: 'audio/wav' });

describe('DropZone', () => {
  it('takes a dropped or picked file (the same one twice), and nothing while disabled', async () => {
    const onFile = vi.fn();
    const user = userEvent.setup();
    const { rerender } = render(<DropZone accept="audio/*" onFile={onFile} testId="zone" hint="up to 1 GB" actions={<button type="button">Record</button>} />);
    expect(screen.getByText('up to 1 GB')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Record' })).toBeInTheDocument();
    const f = file();
    fireEvent.drop(screen.getByTestId('zone'), { dataTransfer: { files: [f] } });
    await user.upload(screen.getByLabelText('Audio file'), f);
    await user.upload(screen.getByLabelText('Audio file'), f);
    expect(onFile).toHaveBeenCalledTimes(3);
    expect(onFile).toHaveBeenLastCalledWith(f);

    rerender(<DropZone accept="audio/*" onFile={onFile} testId="zone" disabled />);
    fireEvent.drop(screen.getByTestId('zone'), { dataTransfer: { files: [f] } });
    expect(screen.getByRole('button', { name: 'Choose a file' })).toBeDisabled();
    expect(screen.getByLabelText('Audio file')).toBeDisabled();
    expect(onFile).toHaveBeenCalledTimes(3);
  });
});

/** The page shape both features have: a zone, the upload's progress, the answer. */
function Harness({ send, onDone }: { send: (hooks: Required<ProgressHooks>) => Promise<string>; onDone: (v: string | undefined) => void }) {
  const upload = useUpload((e) => (e instanceof Error ? e.message : 'failed'));
  return (
    <>
      <DropZone accept="audio/*" disabled={upload.busy} onFile={(f) => void upload.run(f.name, f.size, send).then(onDone)} testId="zone" />
      <UploadProgress
        phase={upload.phase}
        onCancel={upload.cancel}
        processingText={(name) => `Working on ${name}…`}
        processingLabel="Work (estimated)"
        estimate={(elapsed) => (elapsed > 0 ? 0.5 : 0.1)}
        testIds={{ upload: 'up', processing: 'work' }}
      />
    </>
  );
}

const post = (hooks: Required<ProgressHooks>) =>
  uploadWithProgress({ ...hooks, url: '/v1/thing', form: new FormData(), accept: 'application/json' }).then((x) => x.responseText);

describe('upload with progress', () => {
  it('shows the bytes sent, then the estimate of the server’s work, then the answer', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXHR);
    document.cookie = 'xi_website_csrf=tok';
    const onDone = vi.fn();
    render(<Harness send={post} onDone={onDone} />);
    fireEvent.drop(screen.getByTestId('zone'), { dataTransfer: { files: [file('talk.mp3', 1000)] } });
    const xhr = FakeXHR.last!;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe('/v1/thing');
    expect(xhr.withCredentials).toBe(true);
    expect(xhr.headers).toEqual({ Accept: 'application/json', 'X-CSRF-Token': 'tok' });
    expect(screen.getByText('Uploading talk.mp3…')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Choose a file' })).toBeDisabled();
    act(() => xhr.upload.onprogress?.({ loaded: 250, total: 1000, lengthComputable: true }));
    expect(screen.getByTestId('up')).toHaveAttribute('aria-valuenow', '25');
    act(() => xhr.upload.onload?.());
    expect(screen.getByText('Working on talk.mp3…')).toBeInTheDocument();
    expect(screen.queryByTestId('up')).not.toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('work')).toHaveAttribute('aria-valuenow', '50'));
    act(() => xhr.answer(200, 'done'));
    await waitFor(() => expect(onDone).toHaveBeenCalledWith('done'));
    expect(screen.queryByTestId('work')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Choose a file' })).toBeEnabled();
  });

  it('says why the server refused, and cancelling leaves no error', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXHR);
    const onDone = vi.fn();
    const user = userEvent.setup();
    render(<Harness send={post} onDone={onDone} />);
    fireEvent.drop(screen.getByTestId('zone'), { dataTransfer: { files: [file('x.wav')] } });
    act(() => FakeXHR.last!.answer(422, JSON.stringify({ detail: [{ loc: ['body', 'file'], msg: 'The file is empty.', type: 'value_error' }] })));
    expect(await screen.findByRole('alert')).toHaveTextContent('x.wav: The file is empty.');
    expect(onDone).toHaveBeenLastCalledWith(undefined);

    fireEvent.drop(screen.getByTestId('zone'), { dataTransfer: { files: [file('y.wav')] } });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByText('Uploading y.wav…')).not.toBeInTheDocument());
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Choose a file' })).toBeEnabled();
  });

  it('reads an error from a blob answer and reports an unreachable server', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXHR);
    const audio = uploadWithProgress({ url: '/v1/audio', form: new FormData(), accept: 'audio/mpeg', responseType: 'blob' });
    expect(FakeXHR.last!.responseType).toBe('blob');
    FakeXHR.last!.answer(402, JSON.stringify({ detail: { status: 'quota_exceeded', message: 'Out of credits.' } }));
    const err = await audio.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe('Out of credits.');
    expect((err as ApiError).status).toBe(402);

    const offline = uploadWithProgress({ url: '/v1/audio', form: new FormData(), accept: 'audio/mpeg' });
    FakeXHR.last!.onerror?.();
    await expect(offline).rejects.toThrow('could not be reached');
  });
});
