import { errorFromBody, type Schemas } from '@/lib/api';
import { CSRF_COOKIE, CSRF_HEADER, readCookie } from '@/lib/cookies';

export type ClassifierResult = Schemas['SpeechClassifierResponse'];

export const CLASSIFIER_PATH = '/v1/speech-classifier';

/**
 * Uploads a file to POST /v1/speech-classifier. XMLHttpRequest rather than fetch: fetch reports
 * no upload progress. onProgress gets the fraction sent (0–1); the promise rejects with an
 * ApiError for a non-2xx answer and aborts with signal.
 */
export function classifyAudio(
  file: Blob,
  onProgress: (sent: number) => void,
  signal?: AbortSignal,
): Promise<ClassifierResult> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', CLASSIFIER_PATH);
    xhr.withCredentials = true;
    xhr.setRequestHeader('Accept', 'application/json');
    const token = readCookie(CSRF_COOKIE);
    if (token) xhr.setRequestHeader(CSRF_HEADER, token);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: the status text speaks
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(body as ClassifierResult);
      } else {
        reject(errorFromBody(xhr.status, xhr.statusText, body));
      }
    };
    xhr.onerror = () => reject(new Error('The upload failed. Check your connection and try again.'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    const form = new FormData();
    form.append('file', file, file instanceof File ? file.name : 'audio');
    xhr.send(form);
  });
}

/** The verdict's headline. */
export function verdictTitle(r: Pick<ClassifierResult, 'watermark_detected'>): string {
  return r.watermark_detected ? 'Made by this Timbre server' : 'No Timbre watermark found';
}

/** A probability as a percentage people read: never "100 %" or "0 %" for what is only near. */
export function formatProbability(p: number): string {
  if (p >= 0.999) return '> 99.9 %';
  if (p < 0.001) return '< 0.1 %';
  return `${(p * 100).toFixed(1)} %`;
}
