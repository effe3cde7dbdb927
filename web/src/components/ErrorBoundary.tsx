import { Component, type ErrorInfo, type ReactNode } from 'react';
import { MESSAGES } from '@/lib/constants';
import { Button } from './Button';

/** Crash fallback screen (spec §8) with a Try again button that reloads. */
export function CrashFallback({ onRetry }: { onRetry?: () => void }) {
  return (
    <div role="alert" className="flex min-h-[60vh] flex-col items-center justify-center gap-4 p-8 text-center">
      <h1 className="text-2xl font-semibold">{MESSAGES.crashTitle}</h1>
      <p className="max-w-md text-gray-600 dark:text-gray-400">{MESSAGES.crashBody}</p>
      <Button onClick={onRetry ?? (() => window.location.reload())}>{MESSAGES.crashRetry}</Button>
    </div>
  );
}

interface State {
  error: Error | null;
}

export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    // Reported to the console (no external error service in self-hosted builds).
    console.error('[timbre] client error', error, info.componentStack);
  }

  render() {
    if (this.state.error) return <CrashFallback />;
    return this.props.children;
  }
}
