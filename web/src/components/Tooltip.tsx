import * as RadixTooltip from '@radix-ui/react-tooltip';
import type { ReactElement, ReactNode } from 'react';
import { TIMINGS } from '@/lib/constants';

/** Hover/focus hint for icon buttons (opens after 100 ms, spec §9). The child keeps its own aria-label. */
export function Tooltip({ content, children, side = 'top' }: { content: ReactNode; children: ReactElement; side?: 'top' | 'bottom' | 'left' | 'right' }) {
  return (
    <RadixTooltip.Provider delayDuration={TIMINGS.tooltipDelayMs}>
      <RadixTooltip.Root>
        <RadixTooltip.Trigger asChild>{children}</RadixTooltip.Trigger>
        <RadixTooltip.Portal>
          <RadixTooltip.Content
            side={side}
            sideOffset={6}
            className="z-[70] rounded-md bg-gray-900 px-2 py-1 text-xs font-medium text-white shadow-md animate-fade-in dark:bg-white dark:text-gray-900"
          >
            {content}
          </RadixTooltip.Content>
        </RadixTooltip.Portal>
      </RadixTooltip.Root>
    </RadixTooltip.Provider>
  );
}
