import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from '@/components/Button';
import { httpErrorMessage } from '@/lib/api';
import { toast } from '@/lib/toast';
import { alphaAccessQueryKey, getAlphaAccess, requestAlphaAccess } from '../api';

/** Alpha access (spec §6, §7): the flag, and a button to request it. For the settings screen. */
export function AlphaAccessCard() {
  const queryClient = useQueryClient();
  const q = useQuery({ queryKey: alphaAccessQueryKey, queryFn: getAlphaAccess });
  const req = useMutation({
    mutationFn: requestAlphaAccess,
    onSuccess: (data) => {
      queryClient.setQueryData(alphaAccessQueryKey, data);
      queryClient.invalidateQueries({ queryKey: ['notifications'] });
      toast.success('Alpha access requested.');
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const has = q.data?.has_alpha_access ?? false;
  const requested = q.data?.alpha_access_requested ?? false;
  return (
    <section aria-labelledby="alpha-access-title" className="rounded-xl border border-gray-200 p-4 dark:border-gray-800">
      <h2 id="alpha-access-title" className="font-semibold">
        Alpha features
      </h2>
      <p className="mt-1 text-sm text-gray-600 dark:text-gray-400">
        {has
          ? 'You have alpha access: early features are turned on for your account.'
          : requested
            ? 'Your request is pending. You will get a notification when it is decided.'
            : 'Try features before they are released. An administrator reviews each request.'}
      </p>
      {!has && (
        <Button className="mt-3" size="sm" variant="outline" disabled={requested || q.isLoading} loading={req.isPending} onClick={() => req.mutate()}>
          {requested ? 'Alpha access requested' : 'Request alpha access'}
        </Button>
      )}
    </section>
  );
}
