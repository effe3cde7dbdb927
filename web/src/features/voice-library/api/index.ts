import { client, unwrap, type Schemas } from '@/lib/api';

export type LibraryVoice = Schemas['LibraryVoiceResponseModel'];
export type LibraryPage = Schemas['GetLibraryVoicesResponseModel'];
export type Collection = Schemas['UserVoiceCollectionResponseModel'];
export type Sharing = Schemas['VoiceSharingResponseModel'];
export type ShareSettings = Schemas['ShareVoiceRequest'];
export type MyVoice = Schemas['VoiceResponseModel'];

// Under 'workspace' so switching workspaces (which resets every query but the session) refetches them.
export const libraryQueryKey = ['workspace', 'voice-library'] as const;
export const collectionsQueryKey = ['workspace', 'voice-collections'] as const;
export const myVoicesQueryKey = ['workspace', 'voices'] as const;

export interface LibraryFilters {
  search?: string;
  gender?: string;
  age?: string;
  accent?: string;
  language?: string;
  use_cases?: string[];
  sort?: 'created_date' | 'cloned_by_count' | 'usage_character_count_1y' | 'trending';
  page?: number;
  page_size?: number;
}

/** Drops empty filters so the query string holds only what the user chose. */
export function libraryQuery(f: LibraryFilters): LibraryFilters {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(f)) {
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = v;
  }
  return out as LibraryFilters;
}

/** A page of the voice library (GET /v1/shared-voices). */
export const searchLibrary = (f: LibraryFilters): Promise<LibraryPage> =>
  unwrap(client.GET('/v1/shared-voices', { params: { query: libraryQuery(f) } }));

/** Copies a library voice into the workspace (POST /v1/voices/add/{public_user_id}/{voice_id}). */
export const addFromLibrary = (v: LibraryVoice, newName: string) =>
  unwrap(
    client.POST('/v1/voices/add/{public_user_id}/{voice_id}', {
      params: { path: { public_user_id: v.public_owner_id, voice_id: v.voice_id } },
      body: { new_name: newName },
    }),
  );

export const listCollections = () => unwrap(client.GET('/v1/voices/collections', {}));
export const createCollection = (title: string, icon: string) => unwrap(client.POST('/v1/voices/collections', { body: { title, icon } }));
export const deleteCollection = (id: string) =>
  unwrap(client.DELETE('/v1/voices/collections/{collection_id}', { params: { path: { collection_id: id } } }));
export const collectVoice = (collectionId: string, voiceId: string) =>
  unwrap(client.POST('/v1/voices/collections/{collection_id}/voice/{voice_id}', { params: { path: { collection_id: collectionId, voice_id: voiceId } } }));
export const uncollectVoice = (collectionId: string, voiceId: string) =>
  unwrap(client.DELETE('/v1/voices/collections/{collection_id}/voice/{voice_id}', { params: { path: { collection_id: collectionId, voice_id: voiceId } } }));

/** The workspace's voices, optionally those of one collection (GET /v2/voices). */
export const listMyVoices = (collectionId?: string) =>
  unwrap(client.GET('/v2/voices', { params: { query: { page_size: 100, ...(collectionId ? { collection_id: collectionId } : {}) } } }));

/** Publishes or withdraws one of the workspace's voices (POST /v1/voices/{voice_id}/share). */
export const shareVoice = (voiceId: string, body: ShareSettings): Promise<Sharing> =>
  unwrap(client.POST('/v1/voices/{voice_id}/share', { params: { path: { voice_id: voiceId } }, body }));
