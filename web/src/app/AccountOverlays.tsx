import { CcpaPrompt, ConsentBanner } from '@/features/consent';
import { BipaDialog, useAccountUser } from '@/features/onboarding';

/**
 * What the signed-in app shell shows over its pages for the account extras: the BIPA terms
 * dialog, the CCPA prompt and the analytics consent banner. (The onboarding survey has its own
 * page, /app/onboarding; the checklist card sits in the sidebar, where it covers nothing.)
 */
export function AccountOverlays() {
  const user = useAccountUser();
  return (
    <>
      <BipaDialog />
      <div className="pointer-events-none fixed bottom-[calc(var(--player-offset,0px)+1rem)] left-4 z-40 flex max-w-[calc(100vw-2rem)] flex-col items-start gap-3 md:left-[17rem]">
        {user.data && (
          <CcpaPrompt geo={user.data.geo_location} signedIn accountOptOut={user.data.ccpa_opt_out ?? false} />
        )}
        <ConsentBanner />
      </div>
    </>
  );
}
