import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/Button';
import { cn } from '@/components/cn';
import { CheckIcon } from '@/components/icons';
import { httpErrorMessage } from '@/lib/api';
import { offers, useCapabilities } from '@/lib/capabilities';
import { toast } from '@/lib/toast';
import {
  accountUserQueryKey,
  CHECKLIST_LABELS,
  CHECKLIST_LINKS,
  congratulations,
  hideChecklist,
  markChecklistComplete,
  showChecklist,
  type AccountUser,
  type Checklist,
  type ChecklistState,
} from '../api';
import { useAccountUser } from '../hooks';

/**
 * Shows a congratulation toast for each step that became completed since the last snapshot of
 * the checklist, unless the checklist is hidden (spec §4). The first snapshot only sets the baseline.
 */
export function useChecklistToasts(checklist: Checklist | null | undefined) {
  const prev = useRef<Checklist | null | undefined>(undefined);
  const seen = useRef(false);
  useEffect(() => {
    if (checklist === undefined) return;
    if (seen.current) congratulations(prev.current, checklist).forEach((m) => toast.success(m));
    prev.current = checklist;
    seen.current = true;
  }, [checklist]);
}

/** The onboarding checklist card: progress, hide, mark complete. */
export function ChecklistCard({ className }: { className?: string }) {
  const queryClient = useQueryClient();
  const user = useAccountUser();
  useChecklistToasts(user.data?.onboarding_checklist);
  const apply = (state: ChecklistState) =>
    queryClient.setQueryData<AccountUser>(accountUserQueryKey, (u) =>
      u ? { ...u, onboarding_checklist: state.onboarding_checklist, is_onboarding_checklist_completed: state.is_onboarding_checklist_completed } : u,
    );
  const hide = useMutation({ mutationFn: hideChecklist, onSuccess: apply, onError: (e) => toast.error(httpErrorMessage(e)) });
  const complete = useMutation({ mutationFn: markChecklistComplete, onSuccess: apply, onError: (e) => toast.error(httpErrorMessage(e)) });
  const capabilities = useCapabilities();

  if (!showChecklist(user.data)) return null;
  // Only steps the app can take the user to, of features the server offers.
  const items = user.data!.onboarding_checklist!.items.filter((it) => {
    const link = CHECKLIST_LINKS[it.onboarding_checklist_item_id];
    return link !== undefined && offers(capabilities.data, link.feature) !== false;
  });
  if (items.length === 0) return null;
  const done = items.filter((i) => i.is_completed).length;
  return (
    <section
      aria-labelledby="onboarding-checklist-title"
      className={cn(
        'rounded-2xl border border-gray-200 bg-white p-4 text-sm dark:border-gray-800 dark:bg-gray-900 dark:text-gray-100',
        className,
      )}
    >
      <div className="flex items-baseline justify-between">
        <h2 id="onboarding-checklist-title" className="font-semibold">
          Get started
        </h2>
        <span className="text-xs text-gray-500">
          {done} of {items.length} done
        </span>
      </div>
      <div
        className="mt-2 h-1.5 overflow-hidden rounded-full bg-gray-100 dark:bg-gray-800"
        role="progressbar"
        aria-label="Checklist progress"
        aria-valuemin={0}
        aria-valuemax={items.length}
        aria-valuenow={done}
      >
        <div className="h-full bg-emerald-500 transition-all" style={{ width: `${(done / Math.max(1, items.length)) * 100}%` }} />
      </div>
      <ul className="mt-3 space-y-1.5">
        {items.map((it) => (
          <li key={it.onboarding_checklist_item_id} className="flex items-center gap-2">
            <span
              className={cn(
                'flex size-4 shrink-0 items-center justify-center rounded-full border',
                it.is_completed ? 'border-emerald-500 bg-emerald-500 text-white' : 'border-gray-300 dark:border-gray-600',
              )}
              aria-hidden="true"
            >
              {it.is_completed && <CheckIcon size={10} />}
            </span>
            <Link
              to={CHECKLIST_LINKS[it.onboarding_checklist_item_id]!.to}
              className={cn('hover:underline', it.is_completed && 'text-gray-500 line-through')}
            >
              {CHECKLIST_LABELS[it.onboarding_checklist_item_id] ?? it.onboarding_checklist_item_id}
              <span className="sr-only">{it.is_completed ? ' (done)' : ' (to do)'}</span>
            </Link>
          </li>
        ))}
      </ul>
      <div className="mt-4 flex justify-end gap-2">
        <Button variant="ghost" size="sm" loading={hide.isPending} onClick={() => hide.mutate()}>
          Hide
        </Button>
        <Button variant="secondary" size="sm" loading={complete.isPending} onClick={() => complete.mutate()}>
          Mark complete
        </Button>
      </div>
    </section>
  );
}
