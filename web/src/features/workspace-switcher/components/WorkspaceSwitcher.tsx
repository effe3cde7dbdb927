import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { CheckIcon, ChevronsUpDownIcon } from '@/components/icons';
import { Spinner } from '@/components/Spinner';
import { httpErrorMessage } from '@/lib/api';
import { usePlayerStore } from '@/lib/player';
import { toast } from '@/lib/toast';
import { listWorkspaces, refetchEverything, roleLabel, switchWorkspace, workspacesQueryKey } from '../api';
import { WorkspaceNameDialog } from './WorkspaceNameDialog';

const menuItem =
  'flex cursor-pointer items-center gap-2.5 rounded-lg px-3 py-2 outline-none data-highlighted:bg-gray-100 dark:data-highlighted:bg-gray-800';

function initial(name: string): string {
  return (name.trim() || '?').slice(0, 1).toUpperCase();
}

/** The sidebar's workspace switcher: the user's workspaces, the current one ticked. */
export function WorkspaceSwitcher() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const player = usePlayerStore();
  const workspaces = useQuery({ queryKey: workspacesQueryKey, queryFn: listWorkspaces, staleTime: 60_000 });
  const [naming, setNaming] = useState<'create' | 'rename' | null>(null);
  // After creating, the session works in the new workspace: everything cached is the old one's.
  const created = async (name: string) => {
    player.clear();
    await refetchEverything(queryClient);
    toast.success(`Created ${name}`);
    navigate('/app/speech-synthesis/text-to-speech');
  };
  const change = useMutation({
    mutationFn: switchWorkspace,
    onSuccess: async (_, id) => {
      const name = workspaces.data?.workspaces.find((w) => w.workspace_id === id)?.name;
      player.clear(); // the loaded item belongs to the old workspace's history
      await refetchEverything(queryClient);
      if (name) toast.success(`Switched to ${name}`);
      navigate('/app/speech-synthesis/text-to-speech');
    },
    onError: (err) => toast.error(httpErrorMessage(err)),
  });

  const list = workspaces.data?.workspaces ?? [];
  const current = list.find((w) => w.is_current) ?? list.find((w) => w.workspace_id === workspaces.data?.current_workspace_id);
  if (workspaces.isError || (workspaces.isSuccess && list.length === 0)) return null;

  return (
    <>
    <DropdownMenu.Root>
      <DropdownMenu.Trigger
        aria-label={current ? `Workspace: ${current.name}. Switch workspace` : 'Switch workspace'}
        disabled={workspaces.isPending || change.isPending}
        className="flex w-full min-w-0 cursor-pointer items-center gap-2.5 rounded-lg border border-gray-200 bg-white px-2.5 py-2 text-left text-sm hover:bg-gray-50 disabled:cursor-default dark:border-gray-800 dark:bg-gray-900 dark:hover:bg-gray-800"
      >
        <span className="flex size-6 shrink-0 items-center justify-center rounded-md bg-gray-900 text-xs font-semibold text-white dark:bg-white dark:text-gray-900">
          {current ? initial(current.name) : ''}
        </span>
        <span className="min-w-0 flex-1">
          <span className="block truncate font-medium">{current?.name ?? 'Loading…'}</span>
          {current && <span className="block truncate text-xs text-gray-500">{roleLabel(current)}</span>}
        </span>
        {change.isPending ? <Spinner /> : <ChevronsUpDownIcon size={15} className="shrink-0 text-gray-500" />}
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="start"
          sideOffset={6}
          className="z-50 max-h-80 w-[var(--radix-dropdown-menu-trigger-width)] min-w-56 overflow-y-auto rounded-xl border border-gray-200 bg-white p-1 text-sm shadow-lg dark:border-gray-800 dark:bg-gray-900 dark:text-gray-100"
        >
          <DropdownMenu.Label className="px-3 py-2 text-xs text-gray-500">Workspaces</DropdownMenu.Label>
          {list.map((w) => (
            <DropdownMenu.Item
              key={w.workspace_id}
              disabled={w.is_locked}
              onSelect={() => {
                if (!w.is_current && !w.is_locked) change.mutate(w.workspace_id);
              }}
              className="flex cursor-pointer items-center gap-2.5 rounded-lg px-3 py-2 outline-none data-disabled:cursor-not-allowed data-disabled:opacity-50 data-highlighted:bg-gray-100 dark:data-highlighted:bg-gray-800"
            >
              <span className="flex size-6 shrink-0 items-center justify-center rounded-md bg-gray-100 text-xs font-semibold dark:bg-gray-800">
                {initial(w.name)}
              </span>
              <span className="min-w-0 flex-1">
                <span className="block truncate">{w.name}</span>
                <span className="block truncate text-xs text-gray-500">
                  {roleLabel(w)}
                  {w.is_locked ? ' · Locked' : ''}
                </span>
              </span>
              {w.is_current && (
                <>
                  <CheckIcon size={15} />
                  <span className="sr-only">(current)</span>
                </>
              )}
            </DropdownMenu.Item>
          ))}
          <DropdownMenu.Separator className="my-1 h-px bg-gray-200 dark:bg-gray-800" />
          {current?.role === 'admin' && (
            <DropdownMenu.Item onSelect={() => setNaming('rename')} className={menuItem}>
              Rename workspace
            </DropdownMenu.Item>
          )}
          <DropdownMenu.Item onSelect={() => setNaming('create')} className={menuItem}>
            Create workspace
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
    {naming && (
      <WorkspaceNameDialog
        mode={naming}
        current={naming === 'rename' ? current?.name : ''}
        onOpenChange={(open) => !open && setNaming(null)}
        onCreated={created}
      />
    )}
    </>
  );
}
