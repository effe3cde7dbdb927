import { MESSAGES } from '../constants';

/** A failed response, shaped like the spec's error object (§3, §8): status, message, errorType, payload. */
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

/** Message of an error body (spec §8): detail.message, detail.msg, a 422 list, or the status text. */
export function errorFromBody(status: number, statusText: string, body: unknown): ApiError {
  let message = statusText || `Request failed with status ${status}`;
  let errorType: string | undefined;
  const detail = (body as { detail?: unknown } | null | undefined)?.detail;
  if (typeof detail === 'string') {
    message = detail;
  } else if (Array.isArray(detail)) {
    const first = detail[0] as { msg?: string } | undefined;
    if (first?.msg) message = first.msg;
    errorType = 'validation_error';
  } else if (detail && typeof detail === 'object') {
    const d = detail as { message?: string; msg?: string; status?: string };
    message = d.message ?? d.msg ?? message;
    errorType = d.status;
  }
  return new ApiError(status, message, errorType, body);
}

/** HTTP-error toast text (spec §8): server message below 500, else a generic message. */
export function httpErrorMessage(error: unknown): string {
  if (error instanceof ApiError && error.status < 500 && error.message) return error.message;
  return MESSAGES.genericHttpError;
}

export function isApiError(error: unknown, status?: number): error is ApiError {
  return error instanceof ApiError && (status === undefined || error.status === status);
}
