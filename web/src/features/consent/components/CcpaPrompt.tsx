import { useEffect, useRef, useState } from 'react';
import { Button } from '@/components/Button';
import {
  ccpaAction,
  ccpaPromptDismissed,
  dismissCcpaPrompt,
  globalPrivacySignal,
  optOutOfCcpa,
  storedCcpaOptOut,
  type GeoLike,
} from '../api';

interface Props {
  geo: GeoLike | null | undefined;
  signedIn: boolean;
  /** The account's ccpa_opt_out (GET /v1/user). */
  accountOptOut?: boolean;
  /** Overrides for tests. */
  gpc?: boolean;
  reload?: () => void;
}

/**
 * The CCPA opt-out prompt for the listed US states (spec §6). With the browser's global privacy
 * signal the opt-out happens automatically instead.
 */
export function CcpaPrompt({ geo, signedIn, accountOptOut = false, gpc = globalPrivacySignal(), reload }: Props) {
  const [dismissed, setDismissed] = useState(ccpaPromptDismissed);
  const [busy, setBusy] = useState(false);
  const optedOut = accountOptOut || storedCcpaOptOut();
  const action = ccpaAction({ geo, gpc, optedOut, dismissed });
  const autoDone = useRef(false);

  useEffect(() => {
    if (action !== 'auto_opt_out' || autoDone.current) return;
    autoDone.current = true;
    void optOutOfCcpa({ signedIn, reload });
  }, [action, signedIn, reload]);

  if (action !== 'prompt') return null;
  return (
    <section
      role="region"
      aria-label="Your privacy choices"
      className="pointer-events-auto w-full max-w-md rounded-2xl border border-gray-200 bg-white p-4 text-sm shadow-lg dark:border-gray-800 dark:bg-gray-900 dark:text-gray-100"
    >
      <h2 className="font-semibold">Your privacy choices</h2>
      <p className="mt-1 text-gray-700 dark:text-gray-300">
        Under your state&apos;s privacy law you can opt out of the sale or sharing of your personal information, including
        through analytics.
      </p>
      <div className="mt-3 flex justify-end gap-2">
        <Button
          size="sm"
          variant="outline"
          onClick={() => {
            dismissCcpaPrompt();
            setDismissed(true);
          }}
        >
          Not now
        </Button>
        <Button
          size="sm"
          loading={busy}
          onClick={async () => {
            setBusy(true);
            await optOutOfCcpa({ signedIn, reload });
            setBusy(false);
          }}
        >
          Do not sell or share my personal information
        </Button>
      </div>
    </section>
  );
}
