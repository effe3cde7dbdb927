import createClient, { type Middleware } from 'openapi-fetch';
import { CSRF_COOKIE, CSRF_HEADER, readCookie } from '../cookies';
import { errorFromBody } from './errors';
import type { components, operations, paths } from './schema';

/**
 * Typed same-origin client for the Timbre server, generated from
 * api/openapi.json (`npm run gen:api` → schema.d.ts). The web app uses its
 * session cookie; every request that is not GET/HEAD carries the CSRF header
 * read from the `xi_website_csrf` cookie (docs/web-api.md "Sessions and CSRF").
 */

export type Schemas = components['schemas'];
export type Operations = operations;
export type { paths };

/** A history item with the caller's feedback (spec §3): the player and the history panel share it. */
export type HistoryItem = Schemas['HistoryItemWithFeedback'];

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const csrfMiddleware: Middleware = {
  onRequest({ request }) {
    if (SAFE_METHODS.has(request.method.toUpperCase())) return undefined;
    const token = readCookie(CSRF_COOKIE);
    if (token) request.headers.set(CSRF_HEADER, token);
    return request;
  },
};

export function createApiClient(baseUrl = '') {
  const client = createClient<paths>({
    baseUrl,
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
    // Looked up on every call (not captured once), so tests can stub fetch.
    fetch: (request: Request) => globalThis.fetch(request),
  });
  client.use(csrfMiddleware);
  return client;
}

export const client = createApiClient();

type Result<D> = { data?: D; error?: unknown; response: Response };

/**
 * Resolves an openapi-fetch call to its data, throwing an ApiError (spec §8:
 * status, message from detail.message/detail.msg, errorType from detail.status)
 * when the response is not 2xx.
 */
export async function unwrap<D>(call: Promise<Result<D>>): Promise<D> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorFromBody(response.status, response.statusText, error);
  return data as D;
}

/** Like unwrap, but also returns the response (for headers such as history-item-id). */
export async function unwrapWithResponse<D>(call: Promise<Result<D>>): Promise<{ data: D; response: Response }> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorFromBody(response.status, response.statusText, error);
  return { data: data as D, response };
}
