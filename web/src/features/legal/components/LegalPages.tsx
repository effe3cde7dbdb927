import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Logo } from '@/components/Logo';
import { useCapabilities } from '@/lib/capabilities';

/*
 * The built-in terms and privacy pages. A self-hosted Timbre has no company behind it that could
 * offer terms: these pages say so plainly, say what the server keeps, and send people to the
 * operator, whose own terms apply. An operator with pages of their own sets TIMBRE_TERMS_URL and
 * TIMBRE_PRIVACY_URL, and the sign-up form links those instead.
 */

/** The operator's own page, when they named one (an absolute address, not a built-in path). */
function useOperatorPage(which: 'terms_url' | 'privacy_url'): string | undefined {
  const url = useCapabilities('public').data?.legal[which];
  return url && /^https?:\/\//.test(url) ? url : undefined;
}

function LegalLayout({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="min-h-screen bg-white dark:bg-gray-950">
      <header className="border-b border-gray-200 px-6 py-4 dark:border-gray-800">
        <Link to="/app/sign-in" aria-label="Timbre home" className="inline-block">
          <Logo />
        </Link>
      </header>
      <main className="mx-auto w-full max-w-3xl px-4 py-10 sm:px-8">
        <h1 className="text-3xl font-semibold tracking-tight">{title}</h1>
        <div className="mt-8 space-y-8 text-sm leading-relaxed text-gray-700 dark:text-gray-300">{children}</div>
        <p className="mt-12 border-t border-gray-200 pt-6 text-sm text-gray-500 dark:border-gray-800">
          <Link to="/terms" className="underline-offset-4 hover:underline">
            Terms of Service
          </Link>
          <span className="mx-2" aria-hidden="true">
            ·
          </span>
          <Link to="/privacy" className="underline-offset-4 hover:underline">
            Privacy Policy
          </Link>
          <span className="mx-2" aria-hidden="true">
            ·
          </span>
          <Link to="/app/sign-up" className="underline-offset-4 hover:underline">
            Sign up
          </Link>
        </p>
      </main>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="space-y-3">
      <h2 className="text-lg font-semibold text-gray-900 dark:text-white">{title}</h2>
      {children}
    </section>
  );
}

function OperatorPage({ url, what }: { url: string | undefined; what: string }) {
  if (!url) return null;
  return (
    <p className="rounded-xl border border-gray-200 bg-gray-50 p-4 dark:border-gray-800 dark:bg-gray-900">
      The operator of this server publishes their {what} at{' '}
      <a href={url} rel="noopener noreferrer" className="font-medium break-all text-gray-900 underline dark:text-white">
        {url}
      </a>
      .
    </p>
  );
}

const SELF_HOSTED = (
  <p>
    This website is a <strong>Timbre</strong> server: self-hosted voice software (text to speech in the browser and an
    API compatible with ElevenLabs’). It runs on a machine of whoever set it up — a company, a school, a team or a
    person: its <strong>operator</strong>. The operator decides who may use it and keeps everything it stores. The
    makers of the Timbre software do not run this server, cannot see what is on it and are not a party to your use of
    it.
  </p>
);

/** /terms: whose terms apply on a self-hosted server. */
export function TermsPage() {
  const operatorTerms = useOperatorPage('terms_url');
  return (
    <LegalLayout title="Terms of Service">
      <OperatorPage url={operatorTerms} what="terms of service" />
      <Section title="Who runs this server">{SELF_HOSTED}</Section>
      <Section title="Whose terms apply">
        <p>
          The operator’s own terms apply to your account and to what you make here: who may sign up, what you may use
          the voices and the generated audio for, how much you may generate, and what happens when you break the rules.
          {operatorTerms
            ? ' They are on the page linked above.'
            : ' This operator has not linked terms of their own here: ask them for theirs before you rely on this server.'}
        </p>
        <p>
          By checking “I agree to the Terms of Service” when you sign up, you agree to those terms of the operator; if
          you cannot find out what they are, do not sign up.
        </p>
      </Section>
      <Section title="What the software does not promise">
        <p>
          Timbre is software the operator installs and maintains. Whether this server is available, backed up, kept
          up to date and secure depends on them. The voices of the built-in engines are synthetic; do not use them to
          pass off speech as a real person’s.
        </p>
      </Section>
      <Section title="Your data">
        <p>
          What this server stores about you and your work, and where, is on the{' '}
          <Link to="/privacy" className="font-medium text-gray-900 underline dark:text-white">
            Privacy Policy
          </Link>{' '}
          page.
        </p>
      </Section>
    </LegalLayout>
  );
}

/** /privacy: what a Timbre server stores, and that it stays with the operator. */
export function PrivacyPage() {
  const operatorPolicy = useOperatorPage('privacy_url');
  return (
    <LegalLayout title="Privacy Policy">
      <OperatorPage url={operatorPolicy} what="privacy policy" />
      <Section title="Who runs this server">{SELF_HOSTED}</Section>
      <Section title="What this server stores">
        <ul className="list-disc space-y-2 pl-5">
          <li>
            <strong>Your account:</strong> your email address, a hash of your password (never the password itself),
            the name and answers you give in the welcome survey, two-factor settings, and your sign-in sessions with
            the address and browser they came from.
          </li>
          <li>
            <strong>Your workspaces:</strong> their members and roles, invitations, groups, API keys (stored hashed),
            webhooks and single sign-on settings.
          </li>
          <li>
            <strong>What you generate:</strong> the text you turn into speech, the audio made from it, and your
            history of generations with their voices and settings, feedback and share links.
          </li>
          <li>
            <strong>Usage:</strong> the characters each request used, for your plan’s limits.
          </li>
          <li>
            <strong>The audit log:</strong> security-relevant actions in a workspace (sign-ins, key, member, role,
            SSO and webhook changes) with who did them, when and from which address, for the workspace’s admins.
          </li>
        </ul>
      </Section>
      <Section title="Where it is kept">
        <p>
          Everything stays with the operator: in this server’s database (a file in its data directory, or the
          operator’s PostgreSQL) and its audio storage (the data directory, or the operator’s own object storage).
          Mail goes out through the operator’s mail server. Nothing is sent to the makers of Timbre, and the web app
          loads no third-party trackers. When the operator has connected an external speech engine, the text you
          generate with that engine’s voices is sent to it.
        </p>
        <p>
          In your browser, the app keeps a sign-in cookie, a cookie that guards against cross-site requests, and your
          preferences and draft text in local storage.
        </p>
      </Section>
      <Section title="How long, and your choices">
        <p>
          You can delete generations from your history (their audio is removed after a short grace period) and delete
          your account from Settings. How long the operator keeps backups and logs, and who else they share data
          with, is theirs to say:{' '}
          {operatorPolicy ? 'see their policy linked above.' : 'ask the operator of this server.'}
        </p>
      </Section>
    </LegalLayout>
  );
}
