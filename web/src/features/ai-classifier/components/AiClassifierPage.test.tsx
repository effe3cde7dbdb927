import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/test/utils';
import { formatProbability, verdictTitle } from '../api';
import { AiClassifierPage } from './AiClassifierPage';

/** A stand-in XMLHttpRequest: reports upload progress, then answers with status and body. */
function stubXHR(status: number, body: unknown, auto = true) {
  const sent: Array<{ method: string; url: string; form: FormData; headers: Record<string, string> }> = [];
  class FakeXHR {
    upload: { onprogress: ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = { onprogress: null };
    onload: (() => void) | null = null;
    onerror: (() => void) | null = null;
    onabort: (() => void) | null = null;
    status = 0;
    statusText = '';
    responseText = '';
    withCredentials = false;
    private method = '';
    private url = '';
    private headers: Record<string, string> = {};
    open(method: string, url: string) {
      this.method = method;
      this.url = url;
    }
    setRequestHeader(k: string, v: string) {
      this.headers[k] = v;
    }
    abort() {
      this.onabort?.();
    }
    send(form: FormData) {
      sent.push({ method: this.method, url: this.url, form, headers: this.headers });
      pending = this;
      if (auto) setTimeout(() => this.respond(), 10);
    }
    progress(loaded: number) {
      this.upload.onprogress?.({ lengthComputable: true, loaded, total: 100 });
    }
    respond() {
      this.status = status;
      this.responseText = JSON.stringify(body);
      this.onload?.();
    }
  }
  let pending: FakeXHR | undefined;
  vi.stubGlobal('XMLHttpRequest', FakeXHR);
  return {
    sent,
    progress: (loaded: number) => act(() => pending?.progress(loaded)),
    respond: () => act(() => pending?.respond()),
  };
}

afterEach(() => vi.unstubAllGlobals());

const marked = {
  ai_generated_probability: 1,
  watermark_detected: true,
  watermark_score: 58.9,
  watermark_threshold: 7,
  duration_secs: 4.2,
  analyzed_secs: 4.2,
  detector: 'timbre_watermark_v1',
};

describe('classifier rules', () => {
  it('headline and probability wording', () => {
    expect(verdictTitle({ watermark_detected: true })).toBe('Made by this Timbre server');
    expect(verdictTitle({ watermark_detected: false })).toBe('No Timbre watermark found');
    expect(formatProbability(1)).toBe('> 99.9 %');
    expect(formatProbability(0.0002)).toBe('< 0.1 %');
    expect(formatProbability(0.5)).toBe('50.0 %');
  });
});

describe('AiClassifierPage', () => {
  it('uploads the chosen file and shows the verdict, with the honest note', async () => {
    const { sent, progress, respond } = stubXHR(200, marked, false);
    const user = userEvent.setup();
    renderWithProviders(<AiClassifierPage />);
    expect(screen.getByText(/not a general AI-speech detector/)).toBeInTheDocument();
    const file = new File([new Uint8Array(100)], 'speech.mp3', { type: 'audio/mpeg' });
    await user.upload(screen.getByTestId('classifier-file'), file);
    progress(50);
    expect(screen.getByLabelText('Upload progress')).toHaveAttribute('value', '0.5');
    expect(screen.getByText('Uploading speech.mp3…')).toBeInTheDocument();
    respond();
    const verdict = await screen.findByTestId('classifier-verdict');
    expect(verdict).toHaveTextContent('Made by this Timbre server');
    expect(screen.getByTestId('classifier-probability')).toHaveTextContent('> 99.9 %');
    expect(sent).toHaveLength(1);
    expect(sent[0].method).toBe('POST');
    expect(sent[0].url).toBe('/v1/speech-classifier');
    expect((sent[0].form.get('file') as File).name).toBe('speech.mp3');
  });

  it('says plainly when no watermark is found, for a dropped file', async () => {
    stubXHR(200, { ...marked, watermark_detected: false, ai_generated_probability: 0.0003, watermark_score: 4 });
    renderWithProviders(<AiClassifierPage />);
    const file = new File([new Uint8Array(100)], 'other.wav', { type: 'audio/wav' });
    const zone = screen.getByTestId('classifier-dropzone');
    const drop = new Event('drop', { bubbles: true }) as Event & { dataTransfer: unknown };
    drop.dataTransfer = { files: [file] };
    zone.dispatchEvent(drop);
    expect(await screen.findByTestId('classifier-verdict')).toHaveTextContent('No Timbre watermark found');
    expect(screen.getByTestId('classifier-probability')).toHaveTextContent('< 0.1 %');
  });

  it("shows the server's reason when the file is refused", async () => {
    stubXHR(422, { detail: [{ loc: ['body', 'file'], msg: 'The audio is 300 ms long; at least 500 ms is needed to look for the watermark.', type: 'value_error' }] });
    const user = userEvent.setup();
    renderWithProviders(<AiClassifierPage />);
    await user.upload(screen.getByTestId('classifier-file'), new File([new Uint8Array(10)], 'short.mp3', { type: 'audio/mpeg' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('at least 500 ms is needed'));
    expect(screen.queryByTestId('classifier-verdict')).not.toBeInTheDocument();
  });
});
