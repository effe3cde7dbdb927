import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { httpErrorMessage } from '@/lib/api';
import { toast } from '@/lib/toast';
import { acceptBipaTerms, accountUserQueryKey, bipaRequired, type AccountUser } from '../api';
import { useAccountUser } from '../hooks';

export const BIPA_TITLE = 'Biometric information terms';

/**
 * The biometric (BIPA) terms dialog for users in Illinois, US (spec §5): it cannot be closed —
 * no close button, Escape and outside clicks do nothing — until the user accepts.
 */
export function BipaDialog() {
  const queryClient = useQueryClient();
  const user = useAccountUser();
  const accept = useMutation({
    mutationFn: acceptBipaTerms,
    onSuccess: () =>
      queryClient.setQueryData<AccountUser>(accountUserQueryKey, (u) => (u ? { ...u, accepted_bipa_terms: true } : u)),
    onError: (err) => toast.error(httpErrorMessage(err)),
  });
  const open = bipaRequired(user.data);
  return (
    <Dialog
      open={open}
      onOpenChange={() => {
        /* not closable until accepted */
      }}
      hideClose
      title={BIPA_TITLE}
      description="Illinois law (the Biometric Information Privacy Act) requires your consent before we process voice recordings."
      footer={
        <Button loading={accept.isPending} onClick={() => accept.mutate()}>
          I accept
        </Button>
      }
    >
      <div className="space-y-3 text-sm text-gray-700 dark:text-gray-300">
        <p>
          Voice cloning and voice features may create voiceprints — biometric identifiers derived from recordings of a
          voice. Timbre collects, stores and uses them only to provide the features you use, keeps them no longer than
          needed for that purpose (and at most three years after your last interaction), and never sells them.
        </p>
        <p>
          By accepting you consent to this collection, storage and use of biometric identifiers and information from the
          recordings you upload or create, including recordings of other people for whom you have obtained the same
          consent.
        </p>
      </div>
    </Dialog>
  );
}
