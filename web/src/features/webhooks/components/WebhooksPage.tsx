import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { cn } from '@/components/cn';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { Dialog } from '@/components/Dialog';
import { FieldError, TextField } from '@/components/Field';
import { PlusIcon, TrashIcon } from '@/components/icons';
import {
  AdminOnlyNotice,
  copyText,
  Panel,
  Pill,
  QueryState,
  SecretOnce,
  Switch,
  tableClass,
  tdClass,
  thClass,
  theadClass,
  trClass,
} from '@/components/admin';
import { Page } from '@/components/Page';
import { DUTIES, useAdminOrDuty } from '@/lib/access';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { formatDate } from '@/lib/format';
import { toast } from '@/lib/toast';
import {
  createWebhook,
  deleteWebhook,
  deliveriesQueryKey,
  deliveryOutcome,
  listDeliveries,
  listWebhooks,
  sendTestEvent,
  updateWebhook,
  validateWebhook,
  WEBHOOK_EVENTS,
  webhookStatus,
  webhooksQueryKey,
  type Webhook,
  type WebhookDelivery,
  type WebhookEvent,
} from '../api';

function EventsPicker({ value, onChange }: { value: WebhookEvent[]; onChange: (v: WebhookEvent[]) => void }) {
  return (
    <fieldset>
      <legend className="mb-1.5 text-sm font-medium">Events</legend>
      <div className="space-y-1.5 text-sm">
        {WEBHOOK_EVENTS.map((e) => (
          <label key={e.id} className="flex cursor-pointer items-center gap-2">
            <input
              type="checkbox"
              checked={value.includes(e.id)}
              onChange={(x) => onChange(x.target.checked ? [...value, e.id] : value.filter((v) => v !== e.id))}
            />
            {e.label} <code className="text-xs text-gray-500">{e.id}</code>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function WebhookDialog({ open, onOpenChange, webhook }: { open: boolean; onOpenChange: (o: boolean) => void; webhook: Webhook | null }) {
  const queryClient = useQueryClient();
  const editing = webhook !== null;
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>([]);
  const [errors, setErrors] = useState<{ name?: string; url?: string; form?: string }>({});
  const [pending, setPending] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);

  useEffect(() => {
    if (!open) return;
    setName(webhook?.name ?? '');
    setUrl(webhook?.webhook_url ?? '');
    setEvents(webhook?.events ?? []);
    setErrors({});
    setSecret(null);
  }, [open, webhook]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateWebhook(name, editing ? null : url);
    setErrors(found);
    if (Object.keys(found).length) return;
    setPending(true);
    try {
      if (webhook) {
        await updateWebhook(webhook.webhook_id, { name: name.trim(), is_disabled: webhook.is_disabled, events });
        toast.success('Webhook updated.');
        onOpenChange(false);
      } else {
        const created = await createWebhook(name.trim(), url.trim());
        if (events.length) await updateWebhook(created.webhook_id, { name: name.trim(), is_disabled: false, events });
        if (created.webhook_secret) setSecret(created.webhook_secret);
        else onOpenChange(false);
        toast.success('Webhook created.');
      }
      void queryClient.invalidateQueries({ queryKey: webhooksQueryKey });
    } catch (x) {
      if (x instanceof ApiError && x.status < 500) {
        const loc = JSON.stringify((x.payload as { detail?: Array<{ loc?: unknown[] }> })?.detail?.[0]?.loc ?? []);
        if (loc.includes('webhook_url')) setErrors({ url: x.message });
        else if (loc.includes('name')) setErrors({ name: x.message });
        else setErrors({ form: x.message });
      } else toast.error(httpErrorMessage(x));
    } finally {
      setPending(false);
    }
  };

  if (secret) {
    return (
      <Dialog open={open} onOpenChange={onOpenChange} title="Webhook created" description="Use this secret to check the signature of every request (HMAC-SHA256 with a timestamp).">
        <SecretOnce label="signing secret" value={secret} testId="webhook-secret" onCopy={() => void copyText(secret, 'Secret', toast)} />
        <div className="mt-6 flex justify-end">
          <Button variant="outline" onClick={() => onOpenChange(false)}>Done</Button>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={editing ? 'Edit webhook' : 'Create webhook'} className="max-w-lg">
      <form onSubmit={(e) => void submit(e)} noValidate className="space-y-5">
        <TextField label="Name" value={name} autoFocus maxLength={100} error={errors.name} onChange={(e) => { setName(e.target.value); setErrors({}); }} />
        <TextField
          label="URL"
          type="url"
          value={url}
          disabled={editing}
          error={errors.url}
          placeholder="https://example.com/webhooks/timbre"
          hint={editing ? 'The URL of a webhook cannot be changed; create a new one instead.' : 'Events are sent as signed POST requests to this address.'}
          onChange={(e) => { setUrl(e.target.value); setErrors({}); }}
        />
        <div>
          <p className="mb-1.5 text-sm font-medium">Authentication</p>
          <p className="text-sm text-gray-600 dark:text-gray-400">HMAC signature (<code className="text-xs">hmac</code>) — the secret is shown once, after creating.</p>
        </div>
        <EventsPicker value={events} onChange={setEvents} />
        <FieldError>{errors.form}</FieldError>
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => onOpenChange(false)}>Cancel</Button>
          <Button type="submit" loading={pending}>{editing ? 'Save' : 'Create webhook'}</Button>
        </div>
      </form>
    </Dialog>
  );
}

/** A test event being watched in the deliveries log: its delivery id and when it was sent. */
export interface WatchedTest {
  deliveryId: string;
  since: number;
}

/** How long the log polls for a test event's attempts, and how often. */
const WATCH_FOR_MS = 2 * 60_000;
const POLL_FIRST_MS = 1000; // until the first attempt is logged
const POLL_RETRY_MS = 5000; // while another attempt is scheduled

function TestOutcome({ outcome }: { outcome: WebhookDelivery | null }) {
  if (!outcome) return <>Test event queued — waiting for the first attempt…</>;
  const answer = outcome.status_code ? `HTTP ${outcome.status_code}` : (outcome.error ?? 'no response');
  if (outcome.success) return <>Test event delivered: your endpoint answered {answer}.</>;
  return (
    <>
      Test event failed on attempt {outcome.attempt}: {outcome.error ?? answer}.{outcome.will_retry ? ' Another attempt follows.' : ''}
    </>
  );
}

export function DeliveriesDialog({ webhook, watch, onOpenChange }: { webhook: Webhook | null; watch?: WatchedTest | null; onOpenChange: (o: boolean) => void }) {
  const id = webhook?.webhook_id ?? '';
  const query = useInfiniteQuery({
    queryKey: deliveriesQueryKey(id),
    queryFn: ({ pageParam }) => listDeliveries(id, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.has_more && last.next_cursor ? last.next_cursor : undefined),
    enabled: webhook !== null,
    // Poll while a test event sent from this page has not finished (bounded in time).
    refetchInterval: (q) => {
      if (!watch || Date.now() - watch.since > WATCH_FOR_MS) return false;
      const seen = deliveryOutcome(q.state.data?.pages.flatMap((p) => p.deliveries) ?? [], watch.deliveryId);
      if (!seen) return POLL_FIRST_MS;
      return seen.will_retry ? POLL_RETRY_MS : false;
    },
  });
  const rows = query.data?.pages.flatMap((p) => p.deliveries) ?? [];
  const outcome = watch ? deliveryOutcome(rows, watch.deliveryId) : null;
  return (
    <Dialog open={webhook !== null} onOpenChange={onOpenChange} title={`Deliveries — ${webhook?.name ?? ''}`} description="Every attempt to deliver an event, newest first." className="max-w-3xl!">
      <div className="mb-3 flex items-center justify-between gap-3">
        <p role="status" aria-live="polite" className="text-sm text-gray-700 dark:text-gray-300" data-testid="test-outcome">
          {watch && query.isSuccess ? <TestOutcome outcome={outcome} /> : null}
        </p>
        <Button variant="outline" size="sm" loading={query.isRefetching && !query.isFetchingNextPage} onClick={() => void query.refetch()}>
          Refresh
        </Button>
      </div>
      <div className="overflow-x-auto rounded-xl border border-gray-200 dark:border-gray-800">
        <QueryState pending={query.isPending} error={query.error} empty={query.isSuccess && rows.length === 0} emptyText="No deliveries yet." />
        {rows.length > 0 && (
          <table className={tableClass}>
            <thead className={theadClass}>
              <tr>
                <th scope="col" className={thClass}>Time</th>
                <th scope="col" className={thClass}>Event</th>
                <th scope="col" className={thClass}>Status</th>
                <th scope="col" className={thClass}>Duration</th>
                <th scope="col" className={thClass}>Attempt</th>
                <th scope="col" className={thClass}>Error</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id} className={cn(trClass, watch?.deliveryId === d.delivery_id && 'bg-amber-50 dark:bg-amber-950/30')} data-testid="delivery-row">
                  <td className={`${tdClass} whitespace-nowrap text-gray-600 dark:text-gray-400`}>{formatDate(Math.floor(d.timestamp_unix_ms / 1000))}</td>
                  <td className={tdClass}><code className="text-xs">{d.event_type}</code></td>
                  <td className={tdClass}>
                    <Pill tone={d.success ? 'green' : 'red'}>{d.status_code ?? 'No response'}</Pill>
                  </td>
                  <td className={`${tdClass} whitespace-nowrap`}>{d.duration_ms} ms</td>
                  <td className={tdClass}>
                    {d.attempt}
                    {d.will_retry && <span className="ml-1 text-xs text-gray-500">(will retry)</span>}
                  </td>
                  <td className={`${tdClass} min-w-48 text-xs break-words text-red-700 dark:text-red-300`}>{d.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {query.hasNextPage && (
        <div className="mt-4 flex justify-center">
          <Button variant="outline" size="sm" loading={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
            Load older deliveries
          </Button>
        </div>
      )}
    </Dialog>
  );
}

function StatusPill({ webhook }: { webhook: Webhook }) {
  const s = webhookStatus(webhook);
  if (s === 'auto_disabled') return <Pill tone="red">Auto-disabled</Pill>;
  if (s === 'disabled') return <Pill>Disabled</Pill>;
  return <Pill tone="green">Active</Pill>;
}

export function WebhooksPage() {
  const queryClient = useQueryClient();
  // Admins, and editors to whom a group delegates webhooks_manage.
  const { allowed: isAdmin, isPending } = useAdminOrDuty(DUTIES.webhooks);
  const query = useQuery({ queryKey: webhooksQueryKey, queryFn: listWebhooks, enabled: isAdmin });
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [dialogOpen, setDialogOpen] = useState(false);
  const [toDelete, setToDelete] = useState<Webhook | null>(null);
  const [logFor, setLogFor] = useState<Webhook | null>(null);
  const [watch, setWatch] = useState<WatchedTest | null>(null);
  const invalidate = () => void queryClient.invalidateQueries({ queryKey: webhooksQueryKey });
  const toggle = useMutation({
    mutationFn: ({ w, on }: { w: Webhook; on: boolean }) => updateWebhook(w.webhook_id, { name: w.name, is_disabled: !on }),
    onSuccess: (_d, { w, on }) => {
      toast.success(on ? `“${w.name}” enabled.` : `“${w.name}” disabled.`);
      invalidate();
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const remove = useMutation({
    mutationFn: (w: Webhook) => deleteWebhook(w.webhook_id),
    onSuccess: () => {
      toast.success('Webhook deleted.');
      setToDelete(null);
      invalidate();
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const test = useMutation({
    mutationFn: (w: Webhook) => sendTestEvent(w.webhook_id),
    onSuccess: (res, w) => {
      toast.success(`Test event sent to “${w.name}”.`);
      // Show it arriving in the delivery log.
      void queryClient.invalidateQueries({ queryKey: deliveriesQueryKey(w.webhook_id) });
      setWatch({ deliveryId: res.delivery_id, since: Date.now() });
      setLogFor(w);
    },
    onError: (err) => {
      toast.error(httpErrorMessage(err));
      invalidate(); // e.g. 409: it was disabled meanwhile
    },
  });
  const list = query.data?.webhooks ?? [];

  return (
    <Page
      title="Webhooks"
      description="Send signed HTTP requests to your servers when events happen in this workspace. A webhook that keeps failing is disabled automatically."
      actions={
        isAdmin && (
          <Button onClick={() => { setEditing(null); setDialogOpen(true); }}>
            <PlusIcon size={16} /> Create webhook
          </Button>
        )
      }
    >
      {!isPending && !isAdmin ? (
        <AdminOnlyNotice what="webhooks" />
      ) : (
        <Panel>
          <QueryState pending={isPending || query.isPending} error={query.error} empty={query.isSuccess && list.length === 0} emptyText="No webhooks yet." />
          {list.length > 0 && (
            <div className="overflow-x-auto">
              <table className={tableClass}>
                <thead className={theadClass}>
                  <tr>
                    <th scope="col" className={thClass}>Webhook</th>
                    <th scope="col" className={`${thClass} hidden md:table-cell`}>Events</th>
                    <th scope="col" className={thClass}>Status</th>
                    <th scope="col" className={`${thClass} hidden lg:table-cell`}>Most recent failure</th>
                    <th scope="col" className={thClass}>Enabled</th>
                    <th scope="col" className={thClass}><span className="sr-only">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((w) => (
                    <tr key={w.webhook_id} className={trClass} data-testid={`webhook-${w.name}`}>
                      <td className={tdClass}>
                        <div className="font-medium">{w.name}</div>
                        <div className="max-w-72 truncate font-mono text-xs text-gray-500" title={w.webhook_url}>{w.webhook_url}</div>
                      </td>
                      <td className={`${tdClass} hidden md:table-cell`}>
                        {w.events && w.events.length > 0 ? (
                          <span className="flex flex-wrap gap-1">
                            {w.events.map((e) => <Pill key={e}>{WEBHOOK_EVENTS.find((x) => x.id === e)?.label ?? e}</Pill>)}
                          </span>
                        ) : (
                          <span className="text-gray-500">None</span>
                        )}
                      </td>
                      <td className={tdClass}><StatusPill webhook={w} /></td>
                      <td className={`${tdClass} hidden text-xs lg:table-cell`}>
                        {w.most_recent_failure_timestamp ? (
                          <span>
                            {w.most_recent_failure_error_code ? `HTTP ${w.most_recent_failure_error_code}` : 'No response'} ·{' '}
                            {formatDate(w.most_recent_failure_timestamp)}
                          </span>
                        ) : (
                          <span className="text-gray-500">—</span>
                        )}
                      </td>
                      <td className={tdClass}>
                        <Switch
                          label={`${w.name} enabled`}
                          checked={!w.is_disabled && !w.is_auto_disabled}
                          disabled={toggle.isPending}
                          onChange={(on) => toggle.mutate({ w, on })}
                        />
                      </td>
                      <td className={`${tdClass} text-right whitespace-nowrap`}>
                        <Button
                          variant="ghost"
                          size="sm"
                          aria-label={`Send test event to ${w.name}`}
                          title={webhookStatus(w) === 'active' ? 'Send a signed webhook_test event to this URL' : 'Enable the webhook to send a test event'}
                          disabled={webhookStatus(w) !== 'active' || (test.isPending && test.variables?.webhook_id !== w.webhook_id)}
                          loading={test.isPending && test.variables?.webhook_id === w.webhook_id}
                          onClick={() => test.mutate(w)}
                        >
                          Send test event
                        </Button>
                        <Button variant="ghost" size="sm" onClick={() => { setWatch(null); setLogFor(w); }} aria-label={`Deliveries of ${w.name}`}>
                          Deliveries
                        </Button>
                        <Button variant="ghost" size="sm" onClick={() => { setEditing(w); setDialogOpen(true); }} aria-label={`Edit ${w.name}`}>
                          Edit
                        </Button>
                        <Button variant="ghost" size="icon-sm" aria-label={`Delete ${w.name}`} onClick={() => setToDelete(w)}>
                          <TrashIcon size={15} />
                        </Button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Panel>
      )}
      <WebhookDialog open={dialogOpen} onOpenChange={setDialogOpen} webhook={editing} />
      <DeliveriesDialog webhook={logFor} watch={watch} onOpenChange={(o) => { if (!o) { setLogFor(null); setWatch(null); } }} />
      <ConfirmDialog
        open={toDelete !== null}
        onOpenChange={(o) => !o && setToDelete(null)}
        title="Delete webhook?"
        description={toDelete ? `“${toDelete.name}” stops receiving events and its delivery log is deleted.` : undefined}
        confirmLabel="Delete webhook"
        loading={remove.isPending}
        onConfirm={() => toDelete && remove.mutate(toDelete)}
      />
    </Page>
  );
}
