import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch } from '@/test/utils';
import { client, unwrap, unwrapWithResponse } from './client';
import { ApiError, errorFromBody, httpErrorMessage } from './errors';

afterEach(() => vi.unstubAllGlobals());

describe('typed API client: CSRF header middleware', () => {
  it('sends X-CSRF-Token from the xi_website_csrf cookie on non-GET requests only', async () => {
    document.cookie = 'other=1; path=/';
    document.cookie = 'xi_website_csrf=tok%2Fen-123; path=/';
    const { calls } = mockFetch({
      'POST /v1/user/create-api-key': () => jsonResponse({ key_id: 'k', name: 'a', xi_api_key: 's', key_preview: 'p', created_at_unix: 1 }),
      'DELETE /v1/user/delete-api-key': () => jsonResponse({ status: 'ok' }),
      'GET /v1/user/api-keys': () => jsonResponse({ api_keys: [] }),
    });
    await unwrap(client.POST('/v1/user/create-api-key', { body: { name: 'a' } }));
    await unwrap(client.DELETE('/v1/user/delete-api-key', { params: { query: { key_id: 'k' } } }));
    await unwrap(client.GET('/v1/user/api-keys'));

    expect(calls[0]!.headers.get('X-CSRF-Token')).toBe('tok/en-123');
    expect(calls[0]!.headers.get('Content-Type')).toBe('application/json');
    expect(calls[0]!.body).toEqual({ name: 'a' });
    expect(calls[1]!.headers.get('X-CSRF-Token')).toBe('tok/en-123');
    expect(calls[1]!.url.searchParams.get('key_id')).toBe('k');
    expect(calls[2]!.headers.get('X-CSRF-Token')).toBeNull();
  });

  it('sends no CSRF header when the cookie is absent', async () => {
    const { calls } = mockFetch({
      'POST /api/auth/sign-in': () => jsonResponse({ user_id: 'u', email: 'a@b.c', workspace_id: 'w' }),
    });
    await unwrap(client.POST('/api/auth/sign-in', { body: { email: 'a@b.c', password: 'x' } }));
    expect(calls[0]!.headers.has('X-CSRF-Token')).toBe(false);
  });

  it('uses same-origin credentials and looks fetch up per call', async () => {
    const first = mockFetch({ 'GET /v1/models': () => jsonResponse([]) });
    await unwrap(client.GET('/v1/models'));
    expect(first.calls[0]!.credentials).toBe('same-origin');
    const second = mockFetch({ 'GET /v1/models': () => jsonResponse([]) });
    await unwrap(client.GET('/v1/models'));
    expect(second.calls).toHaveLength(1);
  });

  it('fills path params and skips empty query values', async () => {
    const { calls } = mockFetch({ 'GET /v1/history': () => jsonResponse({ history: [], has_more: false }) });
    await unwrap(client.GET('/v1/history', { params: { query: { page_size: 20, start_after_history_item_id: undefined } } }));
    expect(calls[0]!.url.search).toBe('?page_size=20');
  });

  it('returns a 204 as undefined', async () => {
    mockFetch({ 'POST /api/auth/sign-out': () => new Response(null, { status: 204 }) });
    await expect(unwrap(client.POST('/api/auth/sign-out'))).resolves.toBeUndefined();
  });

  it('reads blobs and headers', async () => {
    mockFetch({
      'POST /v1/text-to-speech/v1': () =>
        new Response(new Uint8Array([0xff, 0xfb, 1, 2]), {
          headers: { 'Content-Type': 'audio/mpeg', 'history-item-id': 'h9' },
        }),
    });
    const { data, response } = await unwrapWithResponse(
      client.POST('/v1/text-to-speech/{voice_id}', {
        params: { path: { voice_id: 'v1' } },
        body: { text: 'hi' },
        parseAs: 'blob',
      }),
    );
    expect(data.size).toBe(4);
    expect(response.headers.get('history-item-id')).toBe('h9');
  });
});

describe('errors', () => {
  it('reads detail.message and detail.status', async () => {
    mockFetch({
      'POST /v1/text-to-speech/v1': () =>
        jsonResponse({ detail: { status: 'quota_exceeded', message: 'You have 3 credits left.' } }, 401),
    });
    const err = await unwrap(
      client.POST('/v1/text-to-speech/{voice_id}', { params: { path: { voice_id: 'v1' } }, body: { text: 'x' } }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
    expect((err as ApiError).errorType).toBe('quota_exceeded');
    expect((err as ApiError).message).toBe('You have 3 credits left.');
  });

  it('falls back to the status text for a non-JSON error body', async () => {
    mockFetch({ 'GET /v1/models': () => new Response('upstream down', { status: 502, statusText: 'Bad Gateway' }) });
    const err = (await unwrap(client.GET('/v1/models')).catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(502);
    expect(err.message).toBe('Bad Gateway');
  });

  it('reads detail.msg and 422 lists, falls back to status text', () => {
    expect(errorFromBody(400, 'Bad Request', { detail: { msg: 'nope' } }).message).toBe('nope');
    expect(
      errorFromBody(422, 'Unprocessable', { detail: [{ loc: ['body', 'text'], msg: 'field required', type: 'x' }] }).message,
    ).toBe('field required');
    expect(errorFromBody(502, 'Bad Gateway', null).message).toBe('Bad Gateway');
  });

  it('HTTP error toast text: server message below 500, generic otherwise', () => {
    expect(httpErrorMessage(new ApiError(400, 'Server says no'))).toBe('Server says no');
    expect(httpErrorMessage(new ApiError(500, 'boom'))).toBe('Something went wrong, please try again later.');
    expect(httpErrorMessage(new TypeError('Failed to fetch'))).toBe('Something went wrong, please try again later.');
  });
});
