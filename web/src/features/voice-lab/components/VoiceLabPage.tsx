import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Badge } from '@/components/Badge';
import { Button } from '@/components/Button';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { PlusIcon, TrashIcon } from '@/components/icons';
import { Page } from '@/components/Page';
import { Spinner } from '@/components/Spinner';
import { toast } from '@/lib/toast';
import { deleteVoice, listMyVoices, previewSource, voicesQueryKey, type Voice } from '../api';
import { errorMessage, PARAMETRIC_NOTE } from '../api/model';
import { CloneDialog } from './CloneDialog';

/** /app/voice-lab: the workspace's own voices, instant cloning, and the way to voice design. */
export function VoiceLabPage({ onChanged }: { onChanged?: () => void }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<Voice | null>(null);
  const voices = useQuery({ queryKey: voicesQueryKey, queryFn: listMyVoices });
  const remove = useMutation({
    mutationFn: (id: string) => deleteVoice(id),
    onSuccess: () => {
      setDeleting(null);
      toast('Voice deleted.', 'success');
      void qc.invalidateQueries({ queryKey: voicesQueryKey });
      onChanged?.();
    },
    onError: (err) => toast(errorMessage(err), 'error'),
  });

  return (
    <Page
      title="Voice lab"
      description={PARAMETRIC_NOTE}
      actions={
        <>
          <Link to="/app/voice-lab/design" className="inline-flex h-10 items-center rounded-lg border border-gray-300 px-4 text-sm font-medium hover:bg-gray-50 dark:border-gray-700 dark:hover:bg-gray-800">
            Design a voice
          </Link>
          <Link to="/app/voice-lab/professional" className="inline-flex h-10 items-center rounded-lg border border-gray-300 px-4 text-sm font-medium hover:bg-gray-50 dark:border-gray-700 dark:hover:bg-gray-800">
            Professional clone
          </Link>
          <Button onClick={() => setAdding(true)}>
            <PlusIcon size={16} /> Add voice
          </Button>
        </>
      }
    >
      <section aria-label="My voices">
        <h2 className="mb-3 text-lg font-semibold">My voices</h2>
        {voices.isPending && <Spinner label="Loading voices" />}
        {voices.isError && <p role="alert" className="text-sm text-red-600">{errorMessage(voices.error)}</p>}
        {voices.data?.length === 0 && (
          <p className="rounded-xl border border-dashed border-gray-300 p-6 text-center text-sm text-gray-600 dark:border-gray-700 dark:text-gray-400">
            No voices of your own yet. Add one from a recording of your voice, or design one from a description.
          </p>
        )}
        {voices.data && voices.data.length > 0 && (
          <ul className="divide-y divide-gray-200 rounded-xl border border-gray-200 dark:divide-gray-800 dark:border-gray-800">
            {voices.data.map((v) => (
              <li key={v.voice_id} className="flex flex-wrap items-center gap-3 p-3" data-testid="voice-row">
                <div className="min-w-0 flex-1">
                  <Link to={`/app/voice-lab/${v.voice_id}`} className="font-medium hover:underline">
                    {v.name}
                  </Link>
                  <div className="mt-0.5 flex flex-wrap items-center gap-2 text-xs text-gray-500">
                    <Badge>{v.category}</Badge>
                    {v.samples && <span>{v.samples.length} sample{v.samples.length === 1 ? '' : 's'}</span>}
                    {v.description && <span className="truncate">{v.description}</span>}
                  </div>
                </div>
                {previewSource(v) && <audio controls preload="none" src={previewSource(v)} className="h-8" aria-label={`Preview of ${v.name}`} />}
                <Button variant="ghost" size="icon-sm" aria-label={`Delete ${v.name}`} onClick={() => setDeleting(v)}>
                  <TrashIcon size={16} />
                </Button>
              </li>
            ))}
          </ul>
        )}
      </section>
      <CloneDialog
        open={adding}
        onOpenChange={setAdding}
        onCreated={(id) => {
          setAdding(false);
          toast('Voice added.', 'success');
          void qc.invalidateQueries({ queryKey: voicesQueryKey });
          onChanged?.();
          void navigate(`/app/voice-lab/${id}`);
        }}
      />
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(o) => !o && setDeleting(null)}
        title={`Delete ${deleting?.name ?? 'voice'}?`}
        description="The voice and its recordings are deleted for everyone in the workspace. This cannot be undone."
        confirmLabel="Delete voice"
        loading={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting.voice_id)}
      />
    </Page>
  );
}
