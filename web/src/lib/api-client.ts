import { CSRF_COOKIE, CSRF_HEADER, readCookie } from './cookies';
import { MESSAGES } from './constants';

/**
 * Same-origin HTTP client for the Timbre server. Uses the session cookie; every
 * request that is not GET/HEAD carries the CSRF header read from the
 * `xi_website_csrf` cookie (docs/web-api.md "Sessions and CSRF").
 */

export class ApiError extends Error {
  readonly status: number;
  /** `detail.status` from the server, e.g. `email_not_verified`. */
  readonly errorType: string | undefined;
  readonly payload: unknown;

  constructor(status: number, message: string, errorType?: string, payload?: unknown) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.errorType = errorType;
    this.payload = payload;
  }
}

export type Query = Record<string, string | number | boolean | undefined | null | Array<string | number>>;

export interface RequestOptions {
  method?: string;
  query?: Query;
  /** JSON body (serialised; sets Content-Type). */
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

export function buildUrl(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) value.forEach((v) => params.append(key, String(v)));
    else params.append(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}${path.includes('?') ? '&' : '?'}${qs}` : path;
}

/** Extracts the message of an error body: detail.message, detail.msg, or a 422 list. */
export function errorFromBody(status: number, statusText: string, body: unknown): ApiError {
  let message = statusText || `Request failed with status ${status}`;
  let errorType: string | undefined;
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') {
    message = detail;
  } else if (Array.isArray(detail)) {
    const first = detail[0] as { msg?: string; loc?: unknown[] } | undefined;
    if (first?.msg) message = first.msg;
    errorType = 'validation_error';
  } else if (detail && typeof detail === 'object') {
    const d = detail as { message?: string; msg?: string; status?: string };
    message = d.message ?? d.msg ?? message;
    errorType = d.status;
  }
  return new ApiError(status, message, errorType, body);
}

/** Performs a request and returns the raw Response; throws ApiError on non-2xx. */
export async function apiFetch(path: string, options: RequestOptions = {}): Promise<Response> {
  const method = (options.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = { Accept: 'application/json, */*', ...options.headers };
  let body = options.body;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  if (!SAFE_METHODS.has(method)) {
    const csrf = readCookie(CSRF_COOKIE);
    if (csrf) headers[CSRF_HEADER] = csrf;
  }
  const response = await fetch(buildUrl(path, options.query), {
    method,
    headers,
    body,
    credentials: 'same-origin',
    signal: options.signal,
  });
  if (!response.ok) {
    let parsed: unknown = null;
    try {
      const text = await response.text();
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    throw errorFromBody(response.status, response.statusText, parsed);
  }
  return response;
}

export async function apiJson<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await apiFetch(path, options);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export const api = {
  get: <T>(path: string, query?: Query, signal?: AbortSignal) => apiJson<T>(path, { query, signal }),
  post: <T>(path: string, json?: unknown, query?: Query) =>
    apiJson<T>(path, { method: 'POST', json: json ?? undefined, query }),
  patch: <T>(path: string, json?: unknown) => apiJson<T>(path, { method: 'PATCH', json }),
  delete: <T>(path: string, query?: Query) => apiJson<T>(path, { method: 'DELETE', query }),
};

/** HTTP-error toast text (spec §8): server message below 500, else a generic message. */
export function httpErrorMessage(error: unknown): string {
  if (error instanceof ApiError && error.status < 500 && error.message) return error.message;
  return MESSAGES.genericHttpError;
}

export function isApiError(error: unknown, status?: number): error is ApiError {
  return error instanceof ApiError && (status === undefined || error.status === status);
}
