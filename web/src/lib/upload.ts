import { errorFromBody } from '@/lib/api';
import { CSRF_COOKIE, CSRF_HEADER, readCookie } from '@/lib/cookies';

export interface ProgressHooks {
  /** Bytes of the request sent so far, of total. */
  onUploadProgress?: (sent: number, total: number) => void;
  /** The whole request has been sent: the server is working on it. */
  onUploaded?: () => void;
  signal?: AbortSignal;
}

export interface UploadRequest extends ProgressHooks {
  url: string;
  form: FormData;
  /** The Accept header. */
  accept: string;
  /** 'blob' for audio answers; JSON answers are read as text. */
  responseType?: 'blob' | 'text';
  /** The size to report when the browser cannot tell the request's length. */
  size?: number;
}

/** The error body of a failed answer (a Blob when audio was expected), or undefined when not JSON. */
async function errorBody(response: unknown): Promise<unknown> {
  try {
    const text = response instanceof Blob ? await response.text() : typeof response === 'string' ? response : '';
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined; // not JSON: the status text speaks
  }
}

/**
 * Posts a multipart form through XMLHttpRequest, which (unlike fetch) reports the upload's
 * progress. The session cookie authenticates, with the CSRF header. Resolves with the finished
 * request on a 2xx answer; rejects with an ApiError carrying the server's message otherwise,
 * an Error when the server cannot be reached, and an AbortError when the signal aborts.
 */
export function uploadWithProgress(req: UploadRequest): Promise<XMLHttpRequest> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', req.url);
    xhr.withCredentials = true;
    if (req.responseType === 'blob') xhr.responseType = 'blob';
    xhr.setRequestHeader('Accept', req.accept);
    const csrf = readCookie(CSRF_COOKIE);
    if (csrf) xhr.setRequestHeader(CSRF_HEADER, csrf);
    xhr.upload.onprogress = (e) => req.onUploadProgress?.(e.loaded, e.lengthComputable ? e.total : (req.size ?? e.loaded));
    xhr.upload.onload = () => req.onUploaded?.();
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve(xhr);
      const body = req.responseType === 'blob' ? xhr.response : xhr.responseText;
      void errorBody(body).then((b) => reject(errorFromBody(xhr.status, xhr.statusText, b)));
    };
    xhr.onerror = () => reject(new Error('The upload failed: the server could not be reached.'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    req.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(req.form);
  });
}
