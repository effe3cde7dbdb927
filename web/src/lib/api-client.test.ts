import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch } from '@/test/utils';
import { api, ApiError, apiFetch, buildUrl, errorFromBody, httpErrorMessage } from './api-client';

afterEach(() => vi.unstubAllGlobals());

describe('api client CSRF header', () => {
  it('sends X-CSRF-Token from the xi_website_csrf cookie on non-GET requests', async () => {
    document.cookie = 'other=1; path=/';
    document.cookie = 'xi_website_csrf=tok%2Fen-123; path=/';
    const { calls } = mockFetch({
      'POST /v1/thing': () => jsonResponse({ ok: true }),
      'DELETE /v1/thing': () => jsonResponse({ status: 'ok' }),
      'PATCH /v1/thing': () => jsonResponse({ status: 'ok' }),
      'GET /v1/thing': () => jsonResponse({ ok: true }),
    });
    await api.post('/v1/thing', { a: 1 });
    await api.delete('/v1/thing');
    await api.patch('/v1/thing', {});
    await api.get('/v1/thing');
    await apiFetch('/v1/thing', { method: 'HEAD' }).catch(() => undefined);

    expect(calls[0]!.headers.get('X-CSRF-Token')).toBe('tok/en-123');
    expect(calls[0]!.headers.get('Content-Type')).toBe('application/json');
    expect(calls[0]!.body).toEqual({ a: 1 });
    expect(calls[1]!.headers.get('X-CSRF-Token')).toBe('tok/en-123');
    expect(calls[2]!.headers.get('X-CSRF-Token')).toBe('tok/en-123');
    expect(calls[3]!.headers.get('X-CSRF-Token')).toBeNull();
    expect(calls[4]!.headers.get('X-CSRF-Token')).toBeNull();
  });

  it('sends no CSRF header when the cookie is absent', async () => {
    const { calls } = mockFetch({ 'POST /api/auth/sign-in': () => jsonResponse({}) });
    await api.post('/api/auth/sign-in', {});
    expect(calls[0]!.headers.has('X-CSRF-Token')).toBe(false);
  });

  it('uses same-origin credentials', async () => {
    const { fn } = mockFetch({ 'GET /v1/models': () => jsonResponse([]) });
    await api.get('/v1/models');
    expect(fn.mock.calls[0]![1]).toMatchObject({ credentials: 'same-origin' });
  });
});

describe('errors', () => {
  it('reads detail.message and detail.status', async () => {
    mockFetch({
      'POST /v1/text-to-speech/v1': () =>
        jsonResponse({ detail: { status: 'quota_exceeded', message: 'You have 3 credits left.' } }, 401),
    });
    const err = await api.post('/v1/text-to-speech/v1', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
    expect((err as ApiError).errorType).toBe('quota_exceeded');
    expect((err as ApiError).message).toBe('You have 3 credits left.');
  });

  it('reads detail.msg and 422 lists, falls back to status text', () => {
    expect(errorFromBody(400, 'Bad Request', { detail: { msg: 'nope' } }).message).toBe('nope');
    expect(errorFromBody(422, 'Unprocessable', { detail: [{ loc: ['body', 'text'], msg: 'field required', type: 'x' }] }).message).toBe(
      'field required',
    );
    expect(errorFromBody(502, 'Bad Gateway', null).message).toBe('Bad Gateway');
  });

  it('HTTP error toast text: server message below 500, generic otherwise', () => {
    expect(httpErrorMessage(new ApiError(400, 'Server says no'))).toBe('Server says no');
    expect(httpErrorMessage(new ApiError(500, 'boom'))).toBe('Something went wrong, please try again later.');
    expect(httpErrorMessage(new TypeError('Failed to fetch'))).toBe('Something went wrong, please try again later.');
  });

  it('builds query strings, skipping empty values', () => {
    expect(buildUrl('/v2/voices', { search: '', page_size: 100, x: undefined })).toBe('/v2/voices?page_size=100');
    expect(buildUrl('/a', { ids: ['1', '2'] })).toBe('/a?ids=1&ids=2');
  });
});
