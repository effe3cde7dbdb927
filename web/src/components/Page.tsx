import type { ReactNode } from 'react';
import { cn } from '@/components/cn';

/**
 * The one content column of the app's pages: the same width and padding everywhere, so moving
 * between settings, workspace and developer screens never makes the content jump. (The text to
 * speech editor is the exception: a two-column tool that uses the whole window.)
 */
export const PAGE_COLUMN = 'mx-auto w-full max-w-5xl px-4 py-6 sm:px-8 sm:py-8';

/** A page in the app shell: title, description, actions on the right, then the content. */
export function Page({
  title,
  description,
  actions,
  nav,
  children,
  className,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  /** Tabs or other navigation under the heading. */
  nav?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <div className={cn(PAGE_COLUMN, className)} data-testid="page">
      {/* Actions stay beside a long description on wide screens, below it on phones. */}
      <div className="flex flex-col gap-4 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0 flex-1">
          <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
          {description && <div className="mt-1 text-sm text-gray-600 dark:text-gray-400">{description}</div>}
        </div>
        {actions && <div className="flex shrink-0 flex-wrap gap-2">{actions}</div>}
      </div>
      {nav}
      <div className="mt-8 space-y-8">{children}</div>
    </div>
  );
}
