import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { Button } from '@/components/Button';
import { MailIcon } from '@/components/icons';
import { Logo } from '@/components/Logo';
import { Spinner } from '@/components/Spinner';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { formatDate } from '@/lib/format';
import { getMailbox } from '../api';
import { Linkified } from './Linkified';

/** Development mailbox: mail the server would have sent (no SMTP configured). */
export function MailboxPage() {
  const query = useQuery({ queryKey: ['dev-mailbox'], queryFn: getMailbox, refetchInterval: 5000, retry: false });
  const messages = query.data?.messages ?? [];

  return (
    <div className="min-h-screen bg-gray-50 dark:bg-gray-950">
      <header className="flex items-center justify-between border-b border-gray-200 bg-white px-6 py-4 dark:border-gray-800 dark:bg-gray-900">
        <Link to="/app/sign-in" aria-label="Timbre home">
          <Logo />
        </Link>
        <Button variant="outline" size="sm" onClick={() => void query.refetch()} loading={query.isFetching}>
          Refresh
        </Button>
      </header>
      <main className="mx-auto max-w-3xl px-4 py-8">
        <h1 className="text-2xl font-semibold tracking-tight">Development mailbox</h1>
        <p className="mt-1 text-sm text-gray-600 dark:text-gray-400">
          No mail server is configured, so emails are kept here. Newest first.
        </p>
        <div className="mt-6 space-y-4">
          {query.isPending && (
            <div className="flex items-center gap-2 text-sm text-gray-500">
              <Spinner /> Loading messages…
            </div>
          )}
          {query.isError && (
            <p role="alert" className="rounded-xl border border-red-200 bg-red-50 p-4 text-sm text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100">
              {query.error instanceof ApiError && query.error.status === 404
                ? 'The development mailbox is not available: this server sends mail through SMTP.'
                : httpErrorMessage(query.error)}
            </p>
          )}
          {query.isSuccess && messages.length === 0 && (
            <div className="flex flex-col items-center gap-2 rounded-xl border border-dashed border-gray-300 p-10 text-center text-sm text-gray-500 dark:border-gray-700">
              <MailIcon size={24} />
              No messages yet.
            </div>
          )}
          {messages.map((m) => (
            <article
              key={m.id}
              className="rounded-xl border border-gray-200 bg-white p-5 shadow-xs dark:border-gray-800 dark:bg-gray-900"
            >
              <header className="mb-3 flex flex-wrap items-baseline justify-between gap-2">
                <h2 className="font-medium">{m.subject}</h2>
                <time className="text-xs text-gray-500" dateTime={new Date(m.created_at_unix * 1000).toISOString()}>
                  {formatDate(m.created_at_unix)}
                </time>
              </header>
              <p className="mb-3 text-sm text-gray-600 dark:text-gray-400">
                To: <span className="font-medium text-gray-900 dark:text-gray-100">{m.to}</span>
              </p>
              <div className="whitespace-pre-wrap rounded-lg bg-gray-50 p-4 text-sm leading-relaxed dark:bg-gray-950">
                <Linkified text={m.text || stripHtml(m.html ?? '')} />
              </div>
            </article>
          ))}
        </div>
      </main>
    </div>
  );
}

function stripHtml(html: string): string {
  if (!html) return '';
  const doc = new DOMParser().parseFromString(html, 'text/html');
  doc.querySelectorAll('a[href]').forEach((a) => a.append(` (${a.getAttribute('href')})`));
  return doc.body.textContent ?? '';
}
