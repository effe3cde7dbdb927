import { QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { RouterProvider } from 'react-router';
import { ErrorBoundary } from '@/components/ErrorBoundary';
import { httpErrorMessage } from '@/lib/api';
import { downloadPlayerItem, PlayerProvider, playerStore } from '@/lib/player';
import { toast } from '@/lib/toast';
import { createQueryClient } from './query-client';
import { createAppRouter } from './router';

export function App() {
  const [queryClient] = useState(createQueryClient);
  const [router] = useState(createAppRouter);

  useEffect(() => {
    playerStore.setDownloader(async (item, historyItem) => {
      try {
        await downloadPlayerItem(item, historyItem);
      } catch (err) {
        toast.error(httpErrorMessage(err));
      }
    });
    return () => playerStore.setDownloader(null);
  }, []);

  return (
    <ErrorBoundary>
      <QueryClientProvider client={queryClient}>
        <PlayerProvider store={playerStore}>
          <RouterProvider router={router} />
        </PlayerProvider>
      </QueryClientProvider>
    </ErrorBoundary>
  );
}
