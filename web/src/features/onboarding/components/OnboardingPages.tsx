import { useEffect, useRef, type ReactNode } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { Button } from '@/components/Button';
import { ChevronRightIcon, KeyIcon, ListIcon, SpeechIcon } from '@/components/icons';
import { Logo } from '@/components/Logo';
import { Spinner } from '@/components/Spinner';
import { useSession, useSignOut } from '@/lib/session';
import { httpErrorMessage } from '@/lib/api';
import { useAccountUser } from '../hooks';
import { afterOnboarding, ONBOARDING_NEXT_ROUTE, ONBOARDING_ROUTE, redirectQuery } from '../routing';
import { OnboardingSurveyForm } from './OnboardingSurveyForm';

/** The onboarding pages' frame: the logo, who is signed in, and a way out (sign out). */
function OnboardingLayout({ children }: { children: ReactNode }) {
  const session = useSession();
  const signOut = useSignOut();
  return (
    <div className="flex min-h-screen flex-col bg-gray-50 dark:bg-gray-950">
      <header className="flex items-center justify-between gap-4 px-6 py-5 sm:px-10">
        <Logo />
        <div className="flex items-center gap-3 text-sm text-gray-600 dark:text-gray-400">
          {session.data?.email && <span className="hidden truncate sm:inline">{session.data.email}</span>}
          <Button variant="ghost" size="sm" onClick={signOut}>
            Sign out
          </Button>
        </div>
      </header>
      <main className="flex flex-1 items-start justify-center px-6 pb-16 sm:items-center">{children}</main>
    </div>
  );
}

function Loading() {
  return (
    <div className="flex min-h-screen items-center justify-center">
      <Spinner label="Loading" />
    </div>
  );
}

/**
 * /app/onboarding: the survey a new user answers before using the app (spec §2, §4). Users who
 * already answered it go on to where they were headed.
 */
export function OnboardingPage() {
  const user = useAccountUser();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const redirect = params.get('redirect');
  // Set on success, before the account refetch says "completed": this page then goes to "next"
  // rather than straight on.
  const finishing = useRef(false);
  if (user.isPending) return <Loading />;
  if (user.isError && !user.data) {
    return (
      <OnboardingLayout>
        <div role="alert" className="flex flex-col items-center gap-4 text-center">
          <p>{httpErrorMessage(user.error)}</p>
          <Button onClick={() => void user.refetch()}>Try again</Button>
        </div>
      </OnboardingLayout>
    );
  }
  if (user.data?.is_onboarding_completed !== false) {
    return finishing.current ? <Loading /> : <Navigate to={afterOnboarding(redirect)} replace />;
  }
  return (
    <OnboardingLayout>
      <section
        aria-labelledby="onboarding-title"
        className="w-full max-w-md rounded-2xl border border-gray-200 bg-white p-6 shadow-sm sm:p-8 dark:border-gray-800 dark:bg-gray-900"
      >
        <h1 id="onboarding-title" className="text-2xl font-semibold tracking-tight">
          Welcome to Timbre
        </h1>
        <p className="mt-2 mb-6 text-sm text-gray-600 dark:text-gray-400">
          Tell us a little about yourself, so we can point you to the right place.
        </p>
        <OnboardingSurveyForm
          initialFirstName={user.data.first_name ?? ''}
          onDone={() => {
            finishing.current = true;
            void navigate(`${ONBOARDING_NEXT_ROUTE}${redirectQuery(redirect)}`, { replace: true });
          }}
        />
      </section>
    </OnboardingLayout>
  );
}

interface Landing {
  title: string;
  description: string;
  to: string;
  icon: ReactNode;
  /** Outside the single-page app (a full page load). */
  external?: boolean;
  /** Roles for which this is the first suggestion. */
  forRoles?: string[];
}

/** Onboarding landing pages (spec §2) that this server has. */
export const LANDINGS: Landing[] = [
  {
    title: 'Text to Speech',
    description: 'Type or paste text and hear it in a natural voice.',
    to: '/app/speech-synthesis/text-to-speech',
    icon: <SpeechIcon size={18} />,
  },
  {
    title: 'API keys',
    description: 'Create a key and call the ElevenLabs-compatible API from your code.',
    to: '/app/settings/api-keys',
    icon: <KeyIcon size={18} />,
    forRoles: ['Developer', 'Researcher'],
  },
  {
    title: 'API documentation',
    description: 'Every route, with request and response shapes.',
    to: '/docs',
    icon: <ListIcon size={18} />,
    external: true,
    forRoles: ['Developer', 'Researcher'],
  },
];

/** The landings in the order that suits the role (its suggestions first). */
export function landingsFor(role: string | undefined): Landing[] {
  const first = LANDINGS.filter((l) => role && l.forRoles?.includes(role));
  return [...first, ...LANDINGS.filter((l) => !first.includes(l))];
}

const cardClass =
  'group flex items-start gap-3 rounded-xl border border-gray-200 bg-white p-4 text-left transition-colors hover:border-gray-400 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-gray-900 dark:border-gray-800 dark:bg-gray-900 dark:hover:border-gray-600 dark:focus-visible:ring-white';

/** /app/onboarding/next: where to start, after the survey (spec §2 "onboarding (and next)"). */
export function OnboardingNextPage() {
  const user = useAccountUser();
  const [params] = useSearchParams();
  const redirect = params.get('redirect');
  const heading = useRef<HTMLHeadingElement>(null);
  const ready = user.data?.is_onboarding_completed !== false && !user.isPending;
  useEffect(() => {
    if (ready) heading.current?.focus(); // a new page: start keyboard and screen readers at its title
  }, [ready]);
  if (user.isPending) return <Loading />;
  if (user.data?.is_onboarding_completed === false) return <Navigate to={`${ONBOARDING_ROUTE}${redirectQuery(redirect)}`} replace />;
  const name = user.data?.first_name?.trim();
  const landings = landingsFor(user.data?.onboarding_survey?.role);
  return (
    <OnboardingLayout>
      <section aria-labelledby="onboarding-next-title" className="w-full max-w-xl">
        <h1 id="onboarding-next-title" ref={heading} tabIndex={-1} className="text-2xl font-semibold tracking-tight outline-none">
          {name ? `You’re all set, ${name}` : 'You’re all set'}
        </h1>
        <p className="mt-2 mb-6 text-sm text-gray-600 dark:text-gray-400">Where would you like to start?</p>
        <ul className="grid gap-3">
          {landings.map((l) => {
            const body = (
              <>
                <span className="mt-0.5 flex size-9 shrink-0 items-center justify-center rounded-lg bg-gray-100 text-gray-700 dark:bg-gray-800 dark:text-gray-200">
                  {l.icon}
                </span>
                <span className="min-w-0 flex-1">
                  <span className="block font-medium">{l.title}</span>
                  <span className="block text-sm text-gray-600 dark:text-gray-400">{l.description}</span>
                </span>
                <ChevronRightIcon size={16} className="mt-2 shrink-0 text-gray-400 group-hover:text-gray-700" />
              </>
            );
            return (
              <li key={l.to}>
                {l.external ? (
                  <a href={l.to} className={cardClass}>
                    {body}
                  </a>
                ) : (
                  <Link to={l.to} className={cardClass}>
                    {body}
                  </Link>
                )}
              </li>
            );
          })}
        </ul>
        <p className="mt-6 text-center text-sm">
          <Link
            to={afterOnboarding(redirect)}
            className="text-gray-600 underline-offset-4 hover:underline focus-visible:underline focus-visible:outline-none dark:text-gray-400"
          >
            Skip for now
          </Link>
        </p>
      </section>
    </OnboardingLayout>
  );
}
