import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/Toaster';
import { clearToasts } from '@/lib/toast';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { validateWebhook, webhookStatus } from '../api';
import { WebhooksPage } from './WebhooksPage';

afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
});

const hooks = {
  webhooks: [
    { name: 'Prod', webhook_id: 'w1', webhook_url: 'https://hooks.example.com/a', is_disabled: false, is_auto_disabled: false, created_at_unix: 1, auth_type: 'hmac', events: ['speech_to_text'], most_recent_failure_error_code: null, most_recent_failure_timestamp: null },
    { name: 'Broken', webhook_id: 'w2', webhook_url: 'https://hooks.example.com/b', is_disabled: true, is_auto_disabled: true, created_at_unix: 1, auth_type: 'hmac', events: [], most_recent_failure_error_code: 503, most_recent_failure_timestamp: 1_700_000_000 },
  ],
};
const admin = {
  'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: true }),
  'GET /v1/workspace/webhooks': () => jsonResponse(hooks),
};

describe('webhook rules', () => {
  it('status: auto-disabled wins over disabled', () => {
    expect(webhookStatus({ is_disabled: true, is_auto_disabled: true })).toBe('auto_disabled');
    expect(webhookStatus({ is_disabled: true, is_auto_disabled: false })).toBe('disabled');
    expect(webhookStatus({ is_disabled: false, is_auto_disabled: false })).toBe('active');
  });
  it('form: name and an http(s) URL', () => {
    expect(validateWebhook('', 'https://x.io')).toEqual({ name: 'Please enter a name.' });
    expect(validateWebhook('a', 'ftp://x.io').url).toBe('Please enter a valid http or https URL.');
    expect(validateWebhook('a', '').url).toBe('Please enter the URL to send events to.');
    expect(validateWebhook('a', null)).toEqual({});
  });
});

describe('WebhooksPage', () => {
  it('lists status, auto-disable and the most recent failure; includes usages', async () => {
    const { calls } = mockFetch(admin);
    renderWithProviders(<WebhooksPage />);
    const broken = await screen.findByTestId('webhook-Broken');
    expect(within(broken).getByText('Auto-disabled')).toBeInTheDocument();
    expect(within(broken).getByText(/HTTP 503/)).toBeInTheDocument();
    expect(within(screen.getByTestId('webhook-Prod')).getByText('Active')).toBeInTheDocument();
    expect(within(screen.getByTestId('webhook-Prod')).getByText('Speech to Text')).toBeInTheDocument();
    expect(calls.find((c) => c.url.pathname === '/v1/workspace/webhooks')?.url.searchParams.get('include_usages')).toBe('true');
  });

  it('creates an HMAC webhook, sets its events, and shows the secret once', async () => {
    const { calls } = mockFetch({
      ...admin,
      'POST /v1/workspace/webhooks': () => jsonResponse({ webhook_id: 'w3', webhook_secret: 'wsec_once' }),
      'PATCH /v1/workspace/webhooks/w3': () => jsonResponse({ status: 'ok' }),
    });
    const user = userEvent.setup();
    renderWithProviders(<WebhooksPage />);
    await user.click(await screen.findByRole('button', { name: /Create webhook/ }));
    await user.type(screen.getByLabelText('Name'), 'New');
    await user.type(screen.getByLabelText('URL'), 'https://hooks.example.com/new');
    await user.click(screen.getByLabelText(/Flows/));
    await user.click(screen.getByRole('button', { name: 'Create webhook' }));
    expect(await screen.findByTestId('webhook-secret')).toHaveTextContent('wsec_once');
    expect(screen.getByText(/will not be shown again/)).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ settings: { auth_type: 'hmac', name: 'New', webhook_url: 'https://hooks.example.com/new' } });
    expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ name: 'New', is_disabled: false, events: ['flows'] });
  });

  it('shows the server message for a refused URL', async () => {
    mockFetch({
      ...admin,
      'POST /v1/workspace/webhooks': () =>
        jsonResponse({ detail: [{ loc: ['body', 'settings', 'webhook_url'], msg: 'Private and loopback addresses are not allowed.', type: 'value_error' }] }, 422),
    });
    const user = userEvent.setup();
    renderWithProviders(<WebhooksPage />);
    await user.click(await screen.findByRole('button', { name: /Create webhook/ }));
    await user.type(screen.getByLabelText('Name'), 'Local');
    await user.type(screen.getByLabelText('URL'), 'http://127.0.0.1/x');
    await user.click(screen.getByRole('button', { name: 'Create webhook' }));
    expect(await screen.findByText('Private and loopback addresses are not allowed.')).toBeInTheDocument();
  });

  it('re-enables an auto-disabled webhook, edits events, deletes after confirming', async () => {
    const { calls } = mockFetch({
      ...admin,
      'PATCH /v1/workspace/webhooks/w2': () => jsonResponse({ status: 'ok' }),
      'PATCH /v1/workspace/webhooks/w1': () => jsonResponse({ status: 'ok' }),
      'DELETE /v1/workspace/webhooks/w1': () => jsonResponse({ status: 'ok' }),
    });
    const user = userEvent.setup();
    renderWithProviders(<WebhooksPage />);
    await user.click(await screen.findByRole('switch', { name: 'Broken enabled' }));
    await waitFor(() => expect(calls.find((c) => c.url.pathname === '/v1/workspace/webhooks/w2')?.body).toEqual({ name: 'Broken', is_disabled: false }));

    await user.click(screen.getByRole('button', { name: 'Edit Prod' }));
    expect(screen.getByLabelText('URL')).toBeDisabled();
    await user.click(screen.getByLabelText(/Agent QA/));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(calls.find((c) => c.url.pathname === '/v1/workspace/webhooks/w1' && c.method === 'PATCH')?.body).toEqual({
        name: 'Prod',
        is_disabled: false,
        events: ['speech_to_text', 'agent_qa'],
      }),
    );
    await user.click(screen.getByRole('button', { name: 'Delete Prod' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete webhook' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE')).toBe(true));
  });

  it('shows the deliveries log with status, duration, error and attempt, and loads older pages', async () => {
    const row = (id: string, over: object) => ({ id, delivery_id: 'd', event_type: 'speech_to_text', attempt: 1, timestamp_unix_ms: 1_700_000_000_000, status_code: 200, duration_ms: 42, error: null, success: true, will_retry: false, ...over });
    const { calls } = mockFetch({
      ...admin,
      'GET /api/workspace/webhooks/w2/deliveries': ({ url }) =>
        url.searchParams.get('cursor') === 'c2'
          ? jsonResponse({ deliveries: [row('a3', { status_code: 200 })], has_more: false, next_cursor: null })
          : jsonResponse({
              deliveries: [row('a1', { status_code: 503, success: false, error: 'HTTP 503 Service Unavailable', attempt: 2, will_retry: true, duration_ms: 1200 }), row('a2', { status_code: null, success: false, error: 'connection refused' })],
              has_more: true,
              next_cursor: 'c2',
            }),
    });
    const user = userEvent.setup();
    renderWithProviders(<WebhooksPage />);
    await user.click(await screen.findByRole('button', { name: 'Deliveries of Broken' }));
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByText('HTTP 503 Service Unavailable')).toBeInTheDocument();
    expect(within(dialog).getByText('1200 ms')).toBeInTheDocument();
    expect(within(dialog).getByText('(will retry)')).toBeInTheDocument();
    expect(within(dialog).getByText('No response')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Load older deliveries' }));
    await waitFor(() => expect(within(dialog).getAllByTestId('delivery-row')).toHaveLength(3));
    expect(calls.filter((c) => c.url.pathname.endsWith('/deliveries')).at(-1)?.url.searchParams.get('cursor')).toBe('c2');
  });

  it('sends a test event, then polls the log until its delivery shows up', async () => {
    const attempt = { id: 'a9', delivery_id: 'del_test', event_type: 'webhook_test', attempt: 1, timestamp_unix_ms: 1_700_000_000_000, status_code: 200, duration_ms: 31, error: null, success: true, will_retry: false };
    let logged = false;
    const { calls } = mockFetch({
      ...admin,
      'POST /api/workspace/webhooks/w1/test': () => {
        setTimeout(() => (logged = true), 300); // the worker delivers a moment later
        return jsonResponse({ delivery_id: 'del_test', event_type: 'webhook_test' }, 202);
      },
      'GET /api/workspace/webhooks/w1/deliveries': () => jsonResponse({ deliveries: logged ? [attempt] : [], has_more: false, next_cursor: null }),
    });
    const user = userEvent.setup();
    renderWithProviders(<WebhooksPage />);
    // Only an enabled webhook can be tested.
    expect(await screen.findByRole('button', { name: 'Send test event to Broken' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Send test event to Prod' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByRole('heading', { name: 'Deliveries — Prod' })).toBeInTheDocument();
    expect(await within(dialog).findByText(/waiting for the first attempt/)).toBeInTheDocument();
    expect(await within(dialog).findByText('Test event delivered: your endpoint answered HTTP 200.', {}, { timeout: 4000 })).toBeInTheDocument();
    const row = within(dialog).getByTestId('delivery-row');
    expect(within(row).getByText('webhook_test')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST' && c.url.pathname === '/api/workspace/webhooks/w1/test')).toHaveLength(1);
    const polls = calls.filter((c) => c.url.pathname === '/api/workspace/webhooks/w1/deliveries').length;
    expect(polls).toBeGreaterThanOrEqual(2);
    // Done: polling stops once the outcome is final.
    await new Promise((r) => setTimeout(r, 1500));
    expect(calls.filter((c) => c.url.pathname === '/api/workspace/webhooks/w1/deliveries')).toHaveLength(polls);
  });

  it('shows a failed test attempt that will be retried', async () => {
    const failed = { id: 'a8', delivery_id: 'del_f', event_type: 'webhook_test', attempt: 1, timestamp_unix_ms: 1_700_000_000_000, status_code: 503, duration_ms: 12, error: 'the endpoint answered 503 Service Unavailable', success: false, will_retry: true };
    mockFetch({
      ...admin,
      'POST /api/workspace/webhooks/w1/test': () => jsonResponse({ delivery_id: 'del_f', event_type: 'webhook_test' }, 202),
      'GET /api/workspace/webhooks/w1/deliveries': () => jsonResponse({ deliveries: [failed], has_more: false, next_cursor: null }),
    });
    const user = userEvent.setup();
    renderWithProviders(<WebhooksPage />);
    await user.click(await screen.findByRole('button', { name: 'Send test event to Prod' }));
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByText('Test event failed on attempt 1: the endpoint answered 503 Service Unavailable. Another attempt follows.')).toBeInTheDocument();
  });

  it('shows the server refusal when the webhook was disabled meanwhile', async () => {
    const { calls } = mockFetch({
      ...admin,
      'POST /api/workspace/webhooks/w1/test': () =>
        jsonResponse({ detail: { status: 'webhook_disabled', message: 'The webhook is disabled, so it receives no events: enable it to send a test event.' } }, 409),
    });
    const user = userEvent.setup();
    renderWithProviders(
      <>
        <WebhooksPage />
        <Toaster position="bottom-right" />
      </>,
    );
    await user.click(await screen.findByRole('button', { name: 'Send test event to Prod' }));
    expect(await screen.findByText('The webhook is disabled, so it receives no events: enable it to send a test event.')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    // The list is fetched again to show the current state.
    await waitFor(() => expect(calls.filter((c) => c.url.pathname === '/v1/workspace/webhooks').length).toBeGreaterThanOrEqual(2));
  });

  it('editors see a notice and nothing is fetched', async () => {
    const { calls } = mockFetch({ 'GET /v1/workspace/is-admin': () => jsonResponse({ is_admin: false }) });
    renderWithProviders(<WebhooksPage />);
    expect(await screen.findByText(/Only workspace admins can manage webhooks/)).toBeInTheDocument();
    expect(calls.some((c) => c.url.pathname === '/v1/workspace/webhooks')).toBe(false);
  });
});
