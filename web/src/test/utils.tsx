import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, type RenderOptions } from '@testing-library/react';
import type { ReactElement, ReactNode } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { vi } from 'vitest';
import { PlayerProvider, PlayerStore } from '@/lib/player';

export function testQueryClient() {
  return new QueryClient({
    defaultOptions: { queries: { retry: false, gcTime: Infinity }, mutations: { retry: false } },
  });
}

interface Options extends Omit<RenderOptions, 'wrapper'> {
  route?: string;
  path?: string;
  player?: PlayerStore;
  queryClient?: QueryClient;
  extraRoutes?: Array<{ path: string; element: ReactNode }>;
}

export function renderWithProviders(ui: ReactElement, options: Options = {}) {
  const { route = '/', path = '*', player = new PlayerStore(), queryClient = testQueryClient(), extraRoutes = [], ...rest } =
    options;
  const result = render(
    <QueryClientProvider client={queryClient}>
      <PlayerProvider store={player}>
        <MemoryRouter initialEntries={[route]}>
          <Routes>
            <Route path={path} element={ui} />
            {extraRoutes.map((r) => (
              <Route key={r.path} path={r.path} element={r.element} />
            ))}
          </Routes>
        </MemoryRouter>
      </PlayerProvider>
    </QueryClientProvider>,
    rest,
  );
  return { ...result, player, queryClient };
}

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}) {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

type Handler = (req: { url: URL; method: string; body: unknown; headers: Headers }) => Response | Promise<Response>;

export interface RecordedCall {
  method: string;
  url: URL;
  body: unknown;
  headers: Headers;
  credentials: RequestCredentials | undefined;
}

/**
 * Routes fetch calls (a URL with init, or a Request as openapi-fetch sends) to
 * handlers keyed by "METHOD /path". Unmatched calls answer 404.
 */
export function mockFetch(handlers: Record<string, Handler>) {
  const calls: RecordedCall[] = [];
  const fn = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const isRequest = typeof input === 'object' && !(input instanceof URL) && 'method' in input;
    const request = isRequest ? (input as Request) : undefined;
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : (input as Request).url;
    const url = new URL(href, 'http://localhost');
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init?.headers ?? request?.headers);
    let body: unknown = init?.body;
    if (body === undefined && request && method !== 'GET' && method !== 'HEAD') {
      const text = await request.clone().text();
      body = text === '' ? undefined : text;
    }
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        /* keep string */
      }
    }
    calls.push({ method, url, body, headers, credentials: init?.credentials ?? request?.credentials });
    const handler = handlers[`${method} ${url.pathname}`];
    if (!handler) return jsonResponse({ detail: { status: 'not_found', message: 'Not found' } }, 404);
    return handler({ url, method, body, headers });
  });
  vi.stubGlobal('fetch', fn);
  return { fn, calls };
}
