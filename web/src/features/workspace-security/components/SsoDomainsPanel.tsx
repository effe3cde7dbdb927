import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/Button';
import { copyText, Panel, Pill, QueryState } from '@/components/admin';
import { httpErrorMessage } from '@/lib/api';
import { formatDate } from '@/lib/format';
import { toast } from '@/lib/toast';
import { listSsoDomains, ssoDomainsQueryKey, verifySsoDomain, verifyErrorText, type SsoDomain } from '../api/ssoDomains';

function RecordRow({ label, value, what }: { label: string; value: string; what: string }) {
  return (
    <div className="grid gap-1 py-1.5 sm:grid-cols-[4rem_1fr_auto] sm:items-center sm:gap-3">
      <dt className="text-xs text-gray-500">{label}</dt>
      <dd className="min-w-0 font-mono text-xs break-all">{value}</dd>
      {what ? (
        <Button size="sm" variant="ghost" aria-label={`Copy ${what}`} onClick={() => void copyText(value, what, toast)}>
          Copy
        </Button>
      ) : (
        <span />
      )}
    </div>
  );
}

function DomainRow({
  d,
  verifying,
  error,
  onVerify,
}: {
  d: SsoDomain;
  verifying: boolean;
  error: string | undefined;
  onVerify: () => void;
}) {
  const errorId = `sso-domain-error-${d.domain}`;
  return (
    <li className="space-y-3 px-4 py-3" data-testid={`sso-domain-${d.domain}`}>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="min-w-0">
          <p className="flex items-center gap-2 text-sm font-medium">
            <span className="font-mono">{d.domain}</span>
            {d.verified ? <Pill tone="green">Verified</Pill> : <Pill tone="amber">Pending</Pill>}
          </p>
          <p className="mt-0.5 text-xs text-gray-500">
            {d.provider_name}
            {d.verified && d.verified_at_unix
              ? ` · verified${d.verified_by_user_email ? ` by ${d.verified_by_user_email}` : ''} on ${formatDate(d.verified_at_unix)}`
              : ' · not used for sign-in until verified'}
          </p>
        </div>
        {!d.verified && (
          <Button size="sm" loading={verifying} onClick={onVerify} aria-label={`Verify ${d.domain}`} aria-describedby={error ? errorId : undefined}>
            Verify
          </Button>
        )}
      </div>
      {!d.verified && (
        <div className="rounded-lg bg-gray-50 px-3 py-2 dark:bg-gray-900">
          <p className="text-xs text-gray-600 dark:text-gray-400">
            Add this TXT record at your DNS provider, then press Verify. New records can take a few minutes to appear.
          </p>
          <dl className="mt-1">
            <RecordRow label="Type" value={d.txt_record.type} what="" />
            <RecordRow label="Name" value={d.txt_record.name} what={`record name for ${d.domain}`} />
            <RecordRow label="Value" value={d.txt_record.value} what={`record value for ${d.domain}`} />
          </dl>
        </div>
      )}
      {error && (
        <p id={errorId} role="alert" className="text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
    </li>
  );
}

/**
 * Domain verification (admins): each email domain of the workspace's identity providers, its
 * status, the DNS TXT record that proves ownership, and a Verify button whose failure text (no
 * record, another value, DNS failing) stays under the domain.
 */
export function SsoDomainsPanel() {
  const queryClient = useQueryClient();
  const domains = useQuery({ queryKey: ssoDomainsQueryKey, queryFn: listSsoDomains });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const verify = useMutation({
    mutationFn: verifySsoDomain,
    onMutate: (domain) => setErrors((e) => ({ ...e, [domain]: '' })),
    onSuccess: (d) => {
      toast.success(`${d.domain} is verified.`);
      // The providers' verified_domains change too (the domains key sits under theirs).
      void queryClient.invalidateQueries({ queryKey: ['workspace', 'sso', 'providers'] });
    },
    onError: (err, domain) => setErrors((e) => ({ ...e, [domain]: verifyErrorText(err) })),
  });
  const list = domains.data?.domains ?? [];
  return (
    <Panel
      title="Domain verification"
      description="A domain signs people in through its identity provider only once you prove this workspace owns it."
    >
      {domains.isError ? (
        <p role="alert" className="p-6 text-sm text-red-600">
          {httpErrorMessage(domains.error)}
        </p>
      ) : (
        <QueryState
          pending={domains.isPending}
          error={null}
          empty={domains.isSuccess && list.length === 0}
          emptyText="Add an identity provider with your email domains to verify them here."
        />
      )}
      {list.length > 0 && (
        <ul className="divide-y divide-gray-100 dark:divide-gray-800">
          {list.map((d) => (
            <DomainRow
              key={d.domain}
              d={d}
              verifying={verify.isPending && verify.variables === d.domain}
              error={errors[d.domain] || undefined}
              onVerify={() => verify.mutate(d.domain)}
            />
          ))}
        </ul>
      )}
    </Panel>
  );
}
