import { client, isApiError, httpErrorMessage, unwrap, unwrapWithResponse, type Schemas } from '@/lib/api';

export type MusicPlan = Schemas['MusicPrompt'];
export type MusicSection = Schemas['SongSection'];
export type SongItem = Schemas['MusicHistoryItem'];
export type SongPage = Schemas['MusicHistoryPage'];

export const HISTORY_PAGE_SIZE = 20;
/** What music costs on this server (credits per minute, charged per second). */
export const CREDITS_PER_MINUTE = 1000;
export const MIN_LENGTH_MS = 3000;
export const MAX_LENGTH_MS = 600000;
export const MIN_SECTION_MS = 3000;
export const MAX_SECTION_MS = 120000;
export const MAX_SECTIONS = 30;

// Under 'workspace' so switching workspaces (which resets every query but the session) refetches it.
export const musicHistoryQueryKey = ['workspace', 'music-history'] as const;

/** POST /v1/music/plan: a composition plan for a prompt (free). */
export const writePlan = (prompt: string, lengthMs?: number): Promise<MusicPlan> =>
  unwrap(client.POST('/v1/music/plan', { body: { prompt, music_length_ms: lengthMs ?? null } })) as Promise<MusicPlan>;

export interface ComposeRequest {
  prompt?: string;
  lengthMs?: number;
  plan?: MusicPlan;
  seed?: number;
}

export interface Composed {
  blob: Blob;
  songId: string | null;
  credits: number | null;
}

/** POST /v1/music: the song's audio (mp3), from a prompt or from a plan. */
export async function composeMusic(req: ComposeRequest): Promise<Composed> {
  const body = req.plan
    ? { composition_plan: req.plan, seed: req.seed ?? null }
    : { prompt: req.prompt ?? '', music_length_ms: req.lengthMs ?? null, seed: req.seed ?? null };
  const { data: blob, response } = await unwrapWithResponse(
    client.POST('/v1/music', {
      params: { query: { output_format: 'mp3_44100_128' } },
      body,
      parseAs: 'blob',
      headers: { Accept: 'audio/*, application/json' },
    }),
  );
  const cost = response.headers.get('character-cost');
  return { blob, songId: response.headers.get('song-id'), credits: cost === null ? null : Number(cost) };
}

/** One page (1-based) of the caller's songs, newest first. */
export const listSongs = (page: number): Promise<SongPage> =>
  unwrap(client.GET('/v1/music/history', { params: { query: { page, page_size: HISTORY_PAGE_SIZE } } }));

export const deleteSong = (id: string) => unwrap(client.DELETE('/v1/music/history/{song_id}', { params: { path: { song_id: id } } }));

/** Where a song's audio is served (the session cookie authenticates the GET). */
export const songAudioUrl = (item: Pick<SongItem, 'song_id' | 'download_url'>) =>
  item.download_url || `/v1/music/history/${encodeURIComponent(item.song_id)}/audio`;

/** The server's message for a failed call; for a 422, the first field's message and where. */
export function errorMessage(err: unknown): string {
  if (isApiError(err)) {
    const detail = (err.payload as { detail?: unknown } | null | undefined)?.detail;
    if (Array.isArray(detail) && detail.length > 0) {
      const d = detail[0] as { loc?: unknown[]; msg?: string };
      const where = (d.loc ?? []).filter((p) => p !== 'body').join(' › ');
      return where ? `${where}: ${d.msg ?? 'invalid'}` : (d.msg ?? err.message);
    }
    if (detail && err.message) return err.message;
    return httpErrorMessage(err);
  }
  if (err instanceof Error && err.message) return err.message;
  return httpErrorMessage(err);
}

/** A file name for a song title. */
export function songFileName(title: string): string {
  const base = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return `${base || 'song'}.mp3`;
}

/** The credits a song of ms milliseconds costs (as the server charges: per started second). */
export const songCredits = (ms: number) => Math.max(1, Math.ceil((Math.ceil(ms / 1000) * CREDITS_PER_MINUTE) / 60));

/** Styles typed as a comma-separated list. */
export const parseStyles = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export const planDurationMs = (p: MusicPlan) => p.sections.reduce((n, s) => n + s.duration_ms, 0);

/** What is wrong with a plan before it is sent (the server checks the same), or null. */
export function planProblem(p: MusicPlan): string | null {
  if (p.sections.length === 0) return 'A plan needs at least one section.';
  if (p.sections.length > MAX_SECTIONS) return `A plan has at most ${MAX_SECTIONS} sections.`;
  for (const [i, s] of p.sections.entries()) {
    if (!s.section_name.trim()) return `Section ${i + 1} needs a name.`;
    if (s.duration_ms < MIN_SECTION_MS || s.duration_ms > MAX_SECTION_MS)
      return `“${s.section_name}” lasts ${s.duration_ms / 1000} s; a section lasts 3 to 120 s.`;
  }
  const total = planDurationMs(p);
  if (total < MIN_LENGTH_MS || total > MAX_LENGTH_MS) return `The sections last ${total / 1000} s in all; a song lasts 3 s to 10 minutes.`;
  return null;
}
