import type { ReactNode } from 'react';
import { cn } from './cn';

export function Badge({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <span
      className={cn(
        'inline-flex items-center rounded-md bg-gray-100 px-1.5 py-0.5 text-xs font-medium text-gray-700 dark:bg-gray-800 dark:text-gray-300',
        className,
      )}
    >
      {children}
    </span>
  );
}

/** Shows the first `max` badges then "+N" (spec §9: badge list shows 3 then "+N"). */
export function BadgeList({ items, max = 3 }: { items: string[]; max?: number }) {
  const shown = items.slice(0, max);
  const rest = items.length - shown.length;
  return (
    <span className="flex flex-wrap gap-1">
      {shown.map((item) => (
        <Badge key={item}>{item}</Badge>
      ))}
      {rest > 0 && <Badge>+{rest}</Badge>}
    </span>
  );
}
