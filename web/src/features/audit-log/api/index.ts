import { client, unwrap, type Schemas } from '@/lib/api';

export type AuditEntry = Schemas['WorkspaceAuditLogEntryResponse'] & {
  unmapped?: { class?: string; activity?: string; target_id?: string; details?: Record<string, unknown> };
};

export interface AuditFilters {
  actor: string;
  className: string;
  activity: string;
  /** datetime-local values ("2026-01-31T12:00"), local time. */
  from: string;
  to: string;
}

export const EMPTY_FILTERS: AuditFilters = { actor: '', className: '', activity: '', from: '', to: '' };

/** The stored classes the server filters on (internal/audit), with their labels. */
export const AUDIT_CLASSES: ReadonlyArray<{ id: string; label: string }> = [
  { id: 'auth', label: 'Sign-in' },
  { id: 'session', label: 'Sessions' },
  { id: 'account', label: 'Account' },
  { id: 'mfa', label: 'Two-factor authentication' },
  { id: 'member', label: 'Members' },
  { id: 'invite', label: 'Invites' },
  { id: 'group', label: 'Groups' },
  { id: 'sharing', label: 'Resource sharing' },
  { id: 'api_key', label: 'API keys' },
  { id: 'service_account', label: 'Service accounts' },
  { id: 'webhook', label: 'Webhooks' },
  { id: 'sso', label: 'SSO' },
  { id: 'workspace', label: 'Workspace' },
];

export const auditQueryKey = (f: AuditFilters, cursor: string | undefined) => ['workspace', 'audit-log', f, cursor ?? ''] as const;

function toMs(local: string): number | undefined {
  if (!local) return undefined;
  const ms = new Date(local).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

/** Query parameters of GET /v1/workspace/audit-logs for the filters and a page cursor. */
export function auditQuery(f: AuditFilters, cursor?: string) {
  const q: {
    limit: number;
    cursor?: string;
    actor_uid?: string;
    class_name?: string;
    activity_name?: string;
    time_from_unix_ms?: number;
    time_to_unix_ms?: number;
  } = { limit: 50 };
  if (cursor) q.cursor = cursor;
  if (f.actor) q.actor_uid = f.actor;
  if (f.className) q.class_name = f.className;
  if (f.activity.trim()) q.activity_name = f.activity.trim();
  const from = toMs(f.from);
  const to = toMs(f.to);
  if (from !== undefined) q.time_from_unix_ms = from;
  if (to !== undefined) q.time_to_unix_ms = to;
  return q;
}

export function validateFilters(f: AuditFilters): string | undefined {
  const from = toMs(f.from);
  const to = toMs(f.to);
  if (from !== undefined && to !== undefined && from > to) return 'The start of the time range must be before its end.';
  return undefined;
}

export const listAudit = (f: AuditFilters, cursor?: string) =>
  unwrap(client.GET('/v1/workspace/audit-logs', { params: { query: auditQuery(f, cursor) } })) as Promise<{
    entries: AuditEntry[];
    has_more: boolean;
    next_cursor: string | null;
  }>;

/**
 * Who did it, for people: the event's email or name, else the member's name looked up by id
 * (events recorded without an email), never a bare user id when the member is known.
 */
export function actorLabel(e: AuditEntry, names?: ReadonlyMap<string, string>): string {
  const u = e.actor?.user;
  const known = u?.uid ? names?.get(u.uid) : undefined;
  const who = u?.email_addr || u?.name || known || (u?.type === 'System' ? 'Timbre' : u?.uid) || 'Unknown';
  return e.actor?.app_name ? `${who} (${e.actor.app_name})` : who;
}
