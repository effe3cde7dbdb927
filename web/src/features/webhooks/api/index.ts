import { client, unwrap, type Schemas } from '@/lib/api';

export type Webhook = Schemas['WorkspaceWebhookResponseModel'];
export type WebhookEvent = Schemas['WorkspaceWebhookEventType'];
export type WebhookDelivery = Schemas['WebhookDeliveryAttempt'];
export type DeliveriesPage = Schemas['WebhookDeliveriesPage'];

export const WEBHOOK_EVENTS: ReadonlyArray<{ id: WebhookEvent; label: string }> = [
  { id: 'speech_to_text', label: 'Speech to Text' },
  { id: 'voice_library_removal_notice', label: 'Voice Library removal notices' },
  { id: 'agent_qa', label: 'Agent QA evaluations' },
  { id: 'flows', label: 'Flows' },
];

export const webhooksQueryKey = ['workspace', 'webhooks'] as const;
export const deliveriesQueryKey = (id: string) => ['workspace', 'webhooks', id, 'deliveries'] as const;

export const listWebhooks = () =>
  unwrap(client.GET('/v1/workspace/webhooks', { params: { query: { include_usages: true } } }));

export const createWebhook = (name: string, url: string) =>
  unwrap(client.POST('/v1/workspace/webhooks', { body: { settings: { auth_type: 'hmac', name, webhook_url: url } } }));

export const updateWebhook = (id: string, body: { name: string; is_disabled: boolean; events?: WebhookEvent[] }) =>
  unwrap(client.PATCH('/v1/workspace/webhooks/{webhook_id}', { params: { path: { webhook_id: id } }, body }));

export const deleteWebhook = (id: string) =>
  unwrap(client.DELETE('/v1/workspace/webhooks/{webhook_id}', { params: { path: { webhook_id: id } } }));

export const listDeliveries = (id: string, cursor?: string) =>
  unwrap(
    client.GET('/api/workspace/webhooks/{webhook_id}/deliveries', {
      params: { path: { webhook_id: id }, query: { limit: 25, ...(cursor ? { cursor } : {}) } },
    }),
  );

/** Queues a signed `webhook_test` event to one (enabled) webhook; answers with its delivery id. */
export const sendTestEvent = (id: string) =>
  unwrap(client.POST('/api/workspace/webhooks/{webhook_id}/test', { params: { path: { webhook_id: id } } }));

/** What the delivery log says about one delivery so far: its latest attempt, or null before the first. */
export function deliveryOutcome(rows: ReadonlyArray<WebhookDelivery>, deliveryId: string): WebhookDelivery | null {
  let latest: WebhookDelivery | null = null;
  for (const r of rows) if (r.delivery_id === deliveryId && (!latest || r.attempt > latest.attempt)) latest = r;
  return latest;
}

/** Validates the create/edit form: name 1–100, an http(s) URL (the server also refuses private addresses). */
export function validateWebhook(name: string, url: string | null): { name?: string; url?: string } {
  const errors: { name?: string; url?: string } = {};
  const n = name.trim();
  if (!n) errors.name = 'Please enter a name.';
  else if (n.length > 100) errors.name = 'The name must be at most 100 characters.';
  if (url !== null) {
    const u = url.trim();
    let parsed: URL | null = null;
    try {
      parsed = new URL(u);
    } catch {
      parsed = null;
    }
    if (!u) errors.url = 'Please enter the URL to send events to.';
    else if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) errors.url = 'Please enter a valid http or https URL.';
    else if (u.length > 2048) errors.url = 'The webhook URL must be at most 2048 characters.';
  }
  return errors;
}

/** Status of a webhook for the list: auto-disabled (after repeated failures), disabled, or active. */
export function webhookStatus(w: Pick<Webhook, 'is_disabled' | 'is_auto_disabled'>): 'auto_disabled' | 'disabled' | 'active' {
  if (w.is_auto_disabled) return 'auto_disabled';
  if (w.is_disabled) return 'disabled';
  return 'active';
}
