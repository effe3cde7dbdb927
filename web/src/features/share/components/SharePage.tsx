import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { Logo } from '@/components/Logo';
import { Spinner } from '@/components/Spinner';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { formatDate } from '@/lib/format';
import { getSharedItem, sharedAudioUrl } from '../api';

/** Public page for a shared generation (no sign-in). */
export function SharePage({ token }: { token: string }) {
  const query = useQuery({ queryKey: ['share', token], queryFn: () => getSharedItem(token), retry: false });
  return (
    <div className="flex min-h-screen flex-col bg-gray-50 dark:bg-gray-950">
      <header className="px-6 py-5">
        <Link to="/" aria-label="Timbre home">
          <Logo />
        </Link>
      </header>
      <main className="flex flex-1 items-start justify-center px-4 py-10">
        <div className="w-full max-w-2xl rounded-2xl border border-gray-200 bg-white p-6 shadow-sm sm:p-8 dark:border-gray-800 dark:bg-gray-900">
          {query.isPending && (
            <div className="flex items-center gap-2 text-sm text-gray-500">
              <Spinner /> Loading…
            </div>
          )}
          {query.isError && (
            <div role="alert">
              <h1 className="text-xl font-semibold">
                {query.error instanceof ApiError && query.error.status === 404 ? 'Link not found' : 'Something went wrong'}
              </h1>
              <p className="mt-2 text-sm text-gray-600 dark:text-gray-400">
                {query.error instanceof ApiError && query.error.status === 404
                  ? 'This share link does not exist or has been removed.'
                  : httpErrorMessage(query.error)}
              </p>
            </div>
          )}
          {query.data && (
            <article>
              <p className="text-xs font-medium tracking-wide text-gray-500 uppercase">Shared audio</p>
              <h1 className="mt-1 text-xl font-semibold">{query.data.voice_name}</h1>
              <p className="text-sm text-gray-500">
                <time dateTime={new Date(query.data.date_unix * 1000).toISOString()}>{formatDate(query.data.date_unix)}</time>
              </p>
              <audio
                controls
                preload="metadata"
                src={sharedAudioUrl(token)}
                aria-label={`Audio: ${query.data.voice_name}`}
                className="mt-6 w-full"
              />
              <blockquote className="mt-6 border-l-2 border-gray-200 pl-4 text-base leading-relaxed whitespace-pre-wrap text-gray-800 dark:border-gray-700 dark:text-gray-200">
                {query.data.text}
              </blockquote>
            </article>
          )}
        </div>
      </main>
      <footer className="px-6 py-6 text-center text-xs text-gray-500">
        Made with Timbre ·{' '}
        <Link to="/app/sign-up" className="underline-offset-4 hover:underline">
          Create your own
        </Link>
      </footer>
    </div>
  );
}
