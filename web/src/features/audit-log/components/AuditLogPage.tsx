import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { FieldError, Select, TextField } from '@/components/Field';
import { ChevronLeftIcon, ChevronRightIcon } from '@/components/icons';
import { DUTIES, useAdminOrDuty } from '@/lib/access';
import {
  AdminOnlyNotice,
  Panel,
  Pill,
  QueryState,
  tableClass,
  tdClass,
  thClass,
  theadClass,
  trClass,
} from '@/components/admin';
import { Page } from '@/components/Page';
import { listMembers, membersQueryKey } from '@/lib/members';
import { actorLabel, AUDIT_CLASSES, auditQueryKey, EMPTY_FILTERS, listAudit, validateFilters, type AuditFilters } from '../api';

const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'medium' });

export function AuditLogPage() {
  // Admins, and editors whose groups delegate the audit log to them.
  const { allowed, isPending } = useAdminOrDuty(DUTIES.auditLog);
  const members = useQuery({ queryKey: membersQueryKey, queryFn: listMembers, enabled: allowed });
  const memberNames = new Map((members.data ?? []).map((m) => [m.user_id, m.first_name ? `${m.first_name} (${m.email})` : m.email]));
  const [draft, setDraft] = useState<AuditFilters>(EMPTY_FILTERS);
  const [filters, setFilters] = useState<AuditFilters>(EMPTY_FILTERS);
  const [filterError, setFilterError] = useState<string>();
  // Cursors of the pages seen so far: cursors[i] loads page i (undefined = newest).
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const page = cursors.length - 1;
  const cursor = cursors[page];
  const query = useQuery({
    queryKey: auditQueryKey(filters, cursor),
    queryFn: () => listAudit(filters, cursor),
    enabled: allowed,
    placeholderData: keepPreviousData,
  });
  const entries = query.data?.entries ?? [];

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const err = validateFilters(draft);
    setFilterError(err);
    if (err) return;
    setFilters(draft);
    setCursors([undefined]);
  };
  const set = (k: keyof AuditFilters) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));

  return (
    <Page title="Audit log" description="Security-relevant actions in this workspace: sign-ins, key changes, member and role changes, SSO and webhook changes.">
      {!isPending && !allowed ? (
        <AdminOnlyNotice what="the audit log" />
      ) : (
        <>
          <form onSubmit={apply} aria-label="Filters" className="grid gap-3 rounded-2xl border border-gray-200 p-4 sm:grid-cols-2 lg:grid-cols-6 dark:border-gray-800">
            <div className="lg:col-span-1">
              <label htmlFor="audit-actor" className="mb-1.5 block text-sm font-medium">Actor</label>
              <Select id="audit-actor" value={draft.actor} onChange={set('actor')}>
                <option value="">Anyone</option>
                {(members.data ?? []).map((m) => (
                  <option key={m.user_id} value={m.user_id}>{m.email}</option>
                ))}
              </Select>
            </div>
            <div>
              <label htmlFor="audit-class" className="mb-1.5 block text-sm font-medium">Class</label>
              <Select id="audit-class" value={draft.className} onChange={set('className')}>
                <option value="">All</option>
                {AUDIT_CLASSES.map((c) => (
                  <option key={c.id} value={c.id}>{c.label}</option>
                ))}
              </Select>
            </div>
            <TextField label="Activity" value={draft.activity} onChange={set('activity')} placeholder="e.g. role_change" />
            <TextField label="From" type="datetime-local" value={draft.from} onChange={set('from')} />
            <TextField label="To" type="datetime-local" value={draft.to} onChange={set('to')} />
            <div className="flex items-end gap-2">
              <Button type="submit">Apply</Button>
              <Button
                variant="ghost"
                onClick={() => {
                  setDraft(EMPTY_FILTERS);
                  setFilters(EMPTY_FILTERS);
                  setFilterError(undefined);
                  setCursors([undefined]);
                }}
              >
                Reset
              </Button>
            </div>
            {filterError && (
              <div className="sm:col-span-2 lg:col-span-6">
                <FieldError>{filterError}</FieldError>
              </div>
            )}
          </form>

          <Panel>
            <QueryState pending={isPending || query.isPending} error={query.error} empty={query.isSuccess && entries.length === 0} emptyText="No entries match these filters." />
            {entries.length > 0 && (
              <div className="overflow-x-auto">
                <table className={tableClass}>
                  <thead className={theadClass}>
                    <tr>
                      <th scope="col" className={thClass}>Time</th>
                      <th scope="col" className={thClass}>Actor</th>
                      <th scope="col" className={thClass}>Class</th>
                      <th scope="col" className={thClass}>Activity</th>
                      <th scope="col" className={`${thClass} hidden lg:table-cell`}>Details</th>
                      <th scope="col" className={`${thClass} hidden md:table-cell`}>IP</th>
                    </tr>
                  </thead>
                  <tbody>
                    {entries.map((e) => (
                      <tr key={e.id} className={`${trClass} align-top`} data-testid="audit-row">
                        <td className={`${tdClass} whitespace-nowrap text-gray-600 dark:text-gray-400`}>
                          {e.time ? dateTime.format(new Date(e.time)) : ''}
                        </td>
                        <td className={`${tdClass} max-w-56 truncate`} title={actorLabel(e, memberNames)}>{actorLabel(e, memberNames)}</td>
                        <td className={tdClass}>{e.class_name}</td>
                        <td className={tdClass}>
                          <span className="flex flex-wrap items-center gap-1">
                            {e.activity_name}
                            {e.status_id === 2 && <Pill tone="red">Failed</Pill>}
                          </span>
                        </td>
                        <td className={`${tdClass} hidden max-w-80 lg:table-cell`}>
                          <details>
                            <summary className="cursor-pointer truncate text-gray-600 dark:text-gray-400">{e.message}</summary>
                            <pre className="mt-2 max-h-48 overflow-auto rounded-lg bg-gray-50 p-2 text-xs dark:bg-gray-900">
                              {JSON.stringify(e.unmapped ?? {}, null, 2)}
                            </pre>
                          </details>
                        </td>
                        <td className={`${tdClass} hidden font-mono text-xs text-gray-500 md:table-cell`}>{e.device?.ip ?? ''}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </Panel>
          <nav aria-label="Audit log pages" className="flex items-center justify-between">
            <Button variant="outline" size="sm" disabled={page === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
              <ChevronLeftIcon size={14} /> Newer
            </Button>
            <span className="text-sm text-gray-500">Page {page + 1}</span>
            <Button
              variant="outline"
              size="sm"
              disabled={!query.data?.has_more || !query.data.next_cursor || query.isPlaceholderData}
              onClick={() => query.data?.next_cursor && setCursors((c) => [...c, query.data!.next_cursor!])}
            >
              Older <ChevronRightIcon size={14} />
            </Button>
          </nav>
        </>
      )}
    </Page>
  );
}
