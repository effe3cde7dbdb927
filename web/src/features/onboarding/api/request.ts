import { errorFromBody } from '@/lib/api';
import { CSRF_COOKIE, CSRF_HEADER, readCookie } from '@/lib/cookies';

/**
 * JSON call to a Timbre route of the account extras (onboarding, notifications, consent), with
 * the session cookie and, for writes, the CSRF header. Failures throw the spec's ApiError (§8).
 * (These routes are in api/own/account.json; once schema.d.ts is regenerated they can move to
 * the typed client.)
 */
export async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (method !== 'GET') {
    const token = readCookie(CSRF_COOKIE);
    if (token) headers[CSRF_HEADER] = token;
  }
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await globalThis.fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data: unknown = undefined;
  const text = await response.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!response.ok) throw errorFromBody(response.status, response.statusText, data);
  return data as T;
}
