import { useState } from 'react';
import { Button } from '@/components/Button';
import { browserTimeZone, initialConsent, storeConsent, type AnalyticsConsent } from '../api';

/**
 * The analytics consent banner (spec §4): shown while consent is undecided (European time zones
 * without a stored choice); outside Europe consent is not_applicable and nothing shows.
 */
export function ConsentBanner({ timeZone = browserTimeZone(), onChange }: { timeZone?: string; onChange?: (c: AnalyticsConsent) => void }) {
  const [consent, setConsent] = useState<AnalyticsConsent>(() => initialConsent(timeZone));
  if (consent !== 'undecided') return null;
  const decide = (c: AnalyticsConsent) => {
    storeConsent(c);
    setConsent(c);
    onChange?.(c);
  };
  return (
    <section
      role="region"
      aria-label="Analytics consent"
      className="pointer-events-auto w-full max-w-md rounded-2xl border border-gray-200 bg-white p-4 text-sm shadow-lg dark:border-gray-800 dark:bg-gray-900 dark:text-gray-100"
    >
      <p>
        We would like to use analytics cookies to understand how Timbre is used and improve it. You can change your mind at
        any time.
      </p>
      <div className="mt-3 flex justify-end gap-2">
        <Button size="sm" variant="outline" onClick={() => decide('denied')}>
          Decline
        </Button>
        <Button size="sm" onClick={() => decide('granted')}>
          Accept
        </Button>
      </div>
    </section>
  );
}
