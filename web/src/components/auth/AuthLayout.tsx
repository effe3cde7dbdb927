import { useEffect, type ReactNode } from 'react';
import { Link } from 'react-router';
import { cn } from '@/components/cn';
import { Logo } from '@/components/Logo';
import { useCapabilities } from '@/lib/capabilities';
import { captureReferral } from '@/lib/referral';
import { AuthCarousel, offeredSlides, SLIDES } from './AuthCarousel';

/**
 * Auth layout (spec §2): logo top-left, form column about 45% wide, carousel
 * on the right 55% (hidden on small screens). Fades in; fades out over 0.3 s
 * while `leaving` (the app layer holds the navigation that long).
 */
export function AuthLayout({
  children,
  startSlide,
  leaving = false,
}: {
  children: ReactNode;
  startSlide: number;
  leaving?: boolean;
}) {
  // A referral link (?ref= / ?via=) is kept for sign-up; an ad click id or partner key drops it.
  useEffect(() => captureReferral(window.location.search), []);
  // Only features the server offers are shown; the start slide is kept when it is among them.
  const capabilities = useCapabilities('public');
  const slides = offeredSlides(capabilities.data);
  const startIndex = Math.max(0, slides.findIndex((s) => s.id === SLIDES[startSlide]?.id));
  return (
    <div
      data-testid="auth-layout"
      data-leaving={leaving || undefined}
      aria-busy={leaving || undefined}
      className={cn(
        'flex min-h-screen bg-white dark:bg-gray-950',
        leaving ? 'pointer-events-none animate-fade-out' : 'animate-fade-in',
      )}
    >
      <div className="flex w-full flex-col px-6 py-6 sm:px-10 lg:w-[45%]">
        <header>
          <Link to="/app/sign-in" aria-label="Timbre home" className="inline-block">
            <Logo />
          </Link>
        </header>
        <main className="flex flex-1 items-center justify-center py-10">
          <div className="w-full max-w-sm">{children}</div>
        </main>
      </div>
      <aside className="hidden p-4 lg:block lg:w-[55%]" aria-label="About Timbre">
        <AuthCarousel key={slides.length} startIndex={startIndex} slides={slides} />
      </aside>
    </div>
  );
}

export function AuthHeading({ title, subtitle }: { title: string; subtitle?: ReactNode }) {
  return (
    <div className="mb-8">
      <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
      {subtitle && <p className="mt-2 text-sm text-gray-600 dark:text-gray-400">{subtitle}</p>}
    </div>
  );
}

export function Notice({ tone = 'info', children }: { tone?: 'info' | 'error' | 'success'; children: ReactNode }) {
  const tones = {
    info: 'border-gray-200 bg-gray-50 text-gray-800 dark:border-gray-800 dark:bg-gray-900 dark:text-gray-200',
    error: 'border-red-200 bg-red-50 text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100',
    success:
      'border-emerald-200 bg-emerald-50 text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950 dark:text-emerald-100',
  };
  return (
    <div role={tone === 'error' ? 'alert' : 'status'} className={`rounded-xl border p-4 text-sm ${tones[tone]}`}>
      {children}
    </div>
  );
}
