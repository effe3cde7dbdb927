import { cn } from './cn';

export function Logo({ className }: { className?: string }) {
  return (
    <span className={cn('inline-flex items-center gap-2 text-lg font-semibold tracking-tight', className)}>
      <svg width="26" height="26" viewBox="0 0 32 32" aria-hidden="true">
        <rect width="32" height="32" rx="8" className="fill-gray-900 dark:fill-white" />
        <g className="fill-white dark:fill-gray-900">
          <rect x="8" y="12" width="3" height="8" rx="1.5" />
          <rect x="14.5" y="7" width="3" height="18" rx="1.5" />
          <rect x="21" y="10" width="3" height="12" rx="1.5" />
        </g>
      </svg>
      <span>Timbre</span>
    </span>
  );
}
