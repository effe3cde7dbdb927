import { Link } from 'react-router';
import { DEFAULT_APP_ROUTE } from '@/lib/constants';

export function NotFound({ standalone = false }: { standalone?: boolean }) {
  return (
    <div className={`flex flex-col items-center justify-center gap-3 p-8 text-center ${standalone ? 'min-h-screen' : 'min-h-[60vh]'}`}>
      <p className="text-sm font-medium text-gray-500">404</p>
      <h1 className="text-2xl font-semibold">Page not found</h1>
      <p className="text-gray-600 dark:text-gray-400">This page does not exist or is not available yet.</p>
      <Link to={DEFAULT_APP_ROUTE} className="mt-2 font-medium underline-offset-4 hover:underline">
        Go to Text to Speech
      </Link>
    </div>
  );
}
