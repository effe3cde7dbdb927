import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Badge } from '@/components/Badge';
import { Button } from '@/components/Button';
import { Select, TextField } from '@/components/Field';
import { PlusIcon, TrashIcon } from '@/components/icons';
import { Page } from '@/components/Page';
import { Spinner } from '@/components/Spinner';
import { httpErrorMessage } from '@/lib/api';
import { toast } from '@/lib/toast';
import {
  addFromLibrary,
  collectVoice,
  collectionsQueryKey,
  createCollection,
  deleteCollection,
  libraryQueryKey,
  listCollections,
  listMyVoices,
  myVoicesQueryKey,
  searchLibrary,
  shareVoice,
  uncollectVoice,
  type LibraryFilters,
  type LibraryVoice,
  type MyVoice,
  type ShareSettings,
} from '../api';
import { AddVoiceDialog, ShareDialog } from './dialogs';

const PAGE_SIZE = 12;
const GENDERS = ['male', 'female', 'neutral'];
const AGES = ['young', 'middle_aged', 'old'];
const SORTS: Array<[NonNullable<LibraryFilters['sort']>, string]> = [
  ['created_date', 'Newest'],
  ['cloned_by_count', 'Most added'],
  ['trending', 'Trending'],
];

/** The settings a voice's share dialog starts from: its current sharing, or the defaults. */
export function shareDefaults(v: MyVoice): ShareSettings {
  const s = v.sharing;
  if (!s || s.status === 'copied') return { enabled: true, description: v.description ?? '', free_users_allowed: true, live_moderation_enabled: false, notice_period: 0 };
  return {
    enabled: s.status === 'enabled',
    description: s.description ?? '',
    free_users_allowed: s.free_users_allowed,
    live_moderation_enabled: s.live_moderation_enabled,
    notice_period: s.notice_period,
  };
}

/** /app/voice-library: find voices other workspaces shared, add them, group voices in collections, share your own. */
export function VoiceLibraryPage({ onChanged }: { onChanged?: () => void }) {
  const qc = useQueryClient();
  const [filters, setFilters] = useState<LibraryFilters>({ sort: 'created_date', page: 0, page_size: PAGE_SIZE });
  const [search, setSearch] = useState('');
  const [adding, setAdding] = useState<LibraryVoice | null>(null);
  const [sharing, setSharing] = useState<MyVoice | null>(null);
  const [collection, setCollection] = useState('');
  const [newTitle, setNewTitle] = useState('');

  const library = useQuery({ queryKey: [...libraryQueryKey, filters], queryFn: () => searchLibrary(filters) });
  const collections = useQuery({ queryKey: collectionsQueryKey, queryFn: listCollections });
  const mine = useQuery({ queryKey: [...myVoicesQueryKey, 'v2', collection], queryFn: () => listMyVoices(collection || undefined) });

  const refresh = () => {
    void qc.invalidateQueries({ queryKey: libraryQueryKey });
    void qc.invalidateQueries({ queryKey: myVoicesQueryKey });
  };
  const add = useMutation({
    mutationFn: ({ v, name }: { v: LibraryVoice; name: string }) => addFromLibrary(v, name),
    onSuccess: (_, { name }) => {
      setAdding(null);
      toast(`“${name}” added to your voices.`, 'success');
      refresh();
      onChanged?.();
    },
  });
  const share = useMutation({
    mutationFn: ({ id, s }: { id: string; s: ShareSettings }) => shareVoice(id, s),
    onSuccess: (res) => {
      setSharing(null);
      toast(res.status === 'enabled' ? 'Voice shared to the library.' : 'Voice withdrawn from the library.', 'success');
      refresh();
    },
  });
  const makeCollection = useMutation({
    mutationFn: (title: string) => createCollection(title, '🎙'),
    onSuccess: (c) => {
      setNewTitle('');
      setCollection(c.collection_id);
      void qc.invalidateQueries({ queryKey: collectionsQueryKey });
    },
    onError: (e) => toast(httpErrorMessage(e), 'error'),
  });
  const dropCollection = useMutation({
    mutationFn: deleteCollection,
    onSuccess: () => {
      setCollection('');
      void qc.invalidateQueries({ queryKey: collectionsQueryKey });
    },
    onError: (e) => toast(httpErrorMessage(e), 'error'),
  });
  const toggle = useMutation({
    mutationFn: ({ col, id, inIt }: { col: string; id: string; inIt: boolean }) => (inIt ? uncollectVoice(col, id) : collectVoice(col, id)),
    onSuccess: () => void qc.invalidateQueries({ queryKey: myVoicesQueryKey }),
    onError: (e) => toast(httpErrorMessage(e), 'error'),
  });

  const set = (patch: Partial<LibraryFilters>) => setFilters({ ...filters, ...patch, page: 0 });
  const page = filters.page ?? 0;
  const own = (mine.data?.voices ?? []).filter((v) => v.category !== 'premade');

  return (
    <Page title="Voice library" description="Voices other workspaces shared. Add one to use it in text to speech; share your own voices here too.">
      <form
        role="search"
        className="mb-4 grid gap-3 sm:grid-cols-5"
        onSubmit={(e) => {
          e.preventDefault();
          set({ search });
        }}
      >
        <TextField label="Search" className="sm:col-span-2" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Name, description, label" />
        <label className="text-sm font-medium">
          Gender
          <Select aria-label="Gender" value={filters.gender ?? ''} onChange={(e) => set({ gender: e.target.value })}>
            <option value="">Any</option>
            {GENDERS.map((g) => (
              <option key={g}>{g}</option>
            ))}
          </Select>
        </label>
        <label className="text-sm font-medium">
          Age
          <Select aria-label="Age" value={filters.age ?? ''} onChange={(e) => set({ age: e.target.value })}>
            <option value="">Any</option>
            {AGES.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </Select>
        </label>
        <label className="text-sm font-medium">
          Sort
          <Select aria-label="Sort" value={filters.sort} onChange={(e) => set({ sort: e.target.value as LibraryFilters['sort'] })}>
            {SORTS.map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </Select>
        </label>
        <TextField label="Accent" value={filters.accent ?? ''} onChange={(e) => set({ accent: e.target.value })} placeholder="american" />
        <TextField label="Language" value={filters.language ?? ''} onChange={(e) => set({ language: e.target.value })} placeholder="en" />
        <div className="flex items-end">
          <Button type="submit">Search</Button>
        </div>
      </form>

      <section aria-label="Library voices" className="mb-8">
        {library.isPending && <Spinner label="Loading the library" />}
        {library.isError && <p role="alert" className="text-sm text-red-600">{httpErrorMessage(library.error)}</p>}
        {library.data && library.data.voices.length === 0 && (
          <p className="rounded-xl border border-dashed border-gray-300 p-6 text-center text-sm text-gray-600 dark:border-gray-700">No shared voices match.</p>
        )}
        {library.data && library.data.voices.length > 0 && (
          <>
            <p className="mb-2 text-xs text-gray-500">{library.data.total_count} voice{library.data.total_count === 1 ? '' : 's'}</p>
            <ul className="divide-y divide-gray-200 rounded-xl border border-gray-200 dark:divide-gray-800 dark:border-gray-800">
              {library.data.voices.map((v) => (
                <li key={v.voice_id} className="flex flex-wrap items-center gap-3 p-3" data-testid="library-voice">
                  <div className="min-w-0 flex-1">
                    <div className="font-medium">{v.name}</div>
                    <div className="mt-0.5 flex flex-wrap items-center gap-2 text-xs text-gray-500">
                      <Badge>{v.category}</Badge>
                      {[v.gender, v.age, v.accent, v.use_case].filter(Boolean).map((l) => (
                        <Badge key={l}>{l}</Badge>
                      ))}
                      <span>{v.cloned_by_count} added</span>
                      {v.description && <span className="truncate">{v.description}</span>}
                    </div>
                  </div>
                  {v.preview_url && <audio controls preload="none" src={v.preview_url} className="h-8" aria-label={`Preview of ${v.name}`} />}
                  {v.is_added_by_user ? (
                    <Badge>Added</Badge>
                  ) : (
                    <Button size="sm" onClick={() => { add.reset(); setAdding(v); }} aria-label={`Add ${v.name}`}>
                      <PlusIcon size={14} /> Add
                    </Button>
                  )}
                </li>
              ))}
            </ul>
            <div className="mt-3 flex items-center justify-between text-sm">
              <Button variant="ghost" size="sm" disabled={page === 0} onClick={() => setFilters({ ...filters, page: page - 1 })}>
                Previous
              </Button>
              <span>Page {page + 1}</span>
              <Button variant="ghost" size="sm" disabled={!library.data.has_more} onClick={() => setFilters({ ...filters, page: page + 1 })}>
                Next
              </Button>
            </div>
          </>
        )}
      </section>

      <section aria-label="My voices and collections">
        <h2 className="mb-3 text-lg font-semibold">My voices</h2>
        <div className="mb-3 flex flex-wrap items-end gap-2">
          <label className="text-sm font-medium">
            Collection
            <Select aria-label="Collection" value={collection} onChange={(e) => setCollection(e.target.value)}>
              <option value="">All my voices</option>
              {collections.data?.collections.map((c) => (
                <option key={c.collection_id} value={c.collection_id}>
                  {c.icon} {c.title}
                </option>
              ))}
            </Select>
          </label>
          {collection && (
            <Button variant="ghost" size="sm" onClick={() => dropCollection.mutate(collection)} aria-label="Delete collection">
              <TrashIcon size={14} /> Delete collection
            </Button>
          )}
          <form
            className="flex items-end gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              if (newTitle.trim()) makeCollection.mutate(newTitle.trim());
            }}
          >
            <TextField label="New collection" value={newTitle} maxLength={100} onChange={(e) => setNewTitle(e.target.value)} />
            <Button type="submit" size="sm" loading={makeCollection.isPending}>
              Create
            </Button>
          </form>
        </div>
        {mine.isPending && <Spinner label="Loading your voices" />}
        {mine.data && own.length === 0 && <p className="text-sm text-gray-600">{collection ? 'This collection is empty.' : 'No voices of your own yet.'}</p>}
        <ul className="divide-y divide-gray-200 rounded-xl border border-gray-200 dark:divide-gray-800 dark:border-gray-800">
          {own.map((v) => (
            <li key={v.voice_id} className="flex flex-wrap items-center gap-3 p-3" data-testid="my-voice">
              <div className="min-w-0 flex-1">
                <span className="font-medium">{v.name}</span>{' '}
                <Badge>{v.sharing?.status === 'copied' ? 'from the library' : v.sharing?.status === 'enabled' ? 'shared' : v.category}</Badge>
              </div>
              {collections.data && collections.data.collections.length > 0 && (
                <Select
                  aria-label={`Collection for ${v.name}`}
                  className="w-44"
                  value=""
                  onChange={(e) => e.target.value && toggle.mutate({ col: e.target.value, id: v.voice_id, inIt: false })}
                >
                  <option value="">Add to collection…</option>
                  {collections.data.collections.map((c) => (
                    <option key={c.collection_id} value={c.collection_id}>
                      {c.title}
                    </option>
                  ))}
                </Select>
              )}
              {collection && (
                <Button variant="ghost" size="sm" onClick={() => toggle.mutate({ col: collection, id: v.voice_id, inIt: true })}>
                  Remove from collection
                </Button>
              )}
              {v.sharing?.status !== 'copied' && (
                <Button variant="secondary" size="sm" onClick={() => { share.reset(); setSharing(v); }}>
                  Share to library
                </Button>
              )}
            </li>
          ))}
        </ul>
      </section>

      <AddVoiceDialog
        voice={adding}
        onClose={() => setAdding(null)}
        onAdd={(name) => adding && add.mutate({ v: adding, name })}
        pending={add.isPending}
        error={add.error}
      />
      {sharing && (
        <ShareDialog
          key={sharing.voice_id}
          voiceName={sharing.name}
          initial={shareDefaults(sharing)}
          open
          onClose={() => setSharing(null)}
          onSave={(s) => share.mutate({ id: sharing.voice_id, s })}
          pending={share.isPending}
          error={share.error}
        />
      )}
    </Page>
  );
}
