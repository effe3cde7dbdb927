import type { ReactNode } from 'react';
import { NavLink } from 'react-router';
import { cn } from '@/components/cn';
import { Page } from '@/components/Page';

const TABS = [
  { to: '/app/settings', label: 'Profile', end: true },
  { to: '/app/settings/security', label: 'Security', end: false },
  { to: '/app/settings/api-keys', label: 'API keys', end: false },
];

/** Settings pages share a heading and tabs (profile, security, API keys), in the app's page column. */
export function SettingsLayout({ children }: { children: ReactNode }) {
  return (
    <Page
      title="Settings"
      nav={
        <nav aria-label="Settings" className="mt-4 flex gap-1 border-b border-gray-200 dark:border-gray-800">
          {TABS.map((t) => (
            <NavLink
              key={t.to}
              to={t.to}
              end={t.end}
              className={({ isActive }) =>
                cn(
                  '-mb-px border-b-2 px-3 py-2 text-sm font-medium transition-colors',
                  isActive
                    ? 'border-gray-900 text-gray-900 dark:border-white dark:text-white'
                    : 'border-transparent text-gray-500 hover:text-gray-900 dark:text-gray-400 dark:hover:text-gray-100',
                )
              }
            >
              {t.label}
            </NavLink>
          ))}
        </nav>
      }
    >
      {children}
    </Page>
  );
}

/** A titled card of the settings pages. */
export function SettingsSection({
  title,
  description,
  children,
  actions,
  tone = 'default',
}: {
  title: string;
  description?: ReactNode;
  children?: ReactNode;
  actions?: ReactNode;
  tone?: 'default' | 'danger';
}) {
  const id = `section-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section
      aria-labelledby={id}
      className={cn(
        'rounded-2xl border p-5 sm:p-6',
        tone === 'danger' ? 'border-red-200 dark:border-red-900/60' : 'border-gray-200 dark:border-gray-800',
      )}
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 id={id} className={cn('text-base font-semibold', tone === 'danger' && 'text-red-700 dark:text-red-400')}>
            {title}
          </h2>
          {description && <div className="mt-1 text-sm text-gray-600 dark:text-gray-400">{description}</div>}
        </div>
        {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
      </div>
      {children && <div className="mt-5">{children}</div>}
    </section>
  );
}
