import { client, errorFromBody, isApiError, httpErrorMessage, unwrap, type Schemas } from '@/lib/api';
import { CSRF_COOKIE, CSRF_HEADER, readCookie } from '@/lib/cookies';

export type SoundItem = Schemas['SoundGenerationHistoryItem'];
export type SoundPage = Schemas['SoundGenerationHistoryPage'];
export type ExplorePrompt = Schemas['SoundGenerationPrompt'];
export type ExploreCatalogue = Schemas['SoundGenerationExplore'];

export const GENERATE_PATH = '/v1/sound-generation';
export const HISTORY_PAGE_SIZE = 20;
/** The API's limits (internal/sfx). */
export const MIN_DURATION = 0.5;
export const MAX_DURATION = 30;
export const MAX_TEXT = 1000;
export const DEFAULT_INFLUENCE = 0.3;
/** Credits per second of sound (spec §9: the month's credits buy 250 … 275,000 seconds). */
export const CREDITS_PER_SECOND = 40;
/** How many variations one click makes (as the original: four). */
export const VARIATIONS = 4;

// Under 'workspace' so switching workspaces (which resets every query but the session) refetches it.
export const soundHistoryQueryKey = ['workspace', 'sound-generation-history'] as const;
export const exploreQueryKey = (category: string, search: string) => ['sound-generation-explore', category, search] as const;

export const listSounds = (page: number): Promise<SoundPage> =>
  unwrap(client.GET('/v1/sound-generation/history', { params: { query: { page, page_size: HISTORY_PAGE_SIZE } } }));

export const deleteSound = (id: string) =>
  unwrap(client.DELETE('/v1/sound-generation/history/{history_item_id}', { params: { path: { history_item_id: id } } }));

export const exploreCatalogue = (category: string, search: string): Promise<ExploreCatalogue> =>
  unwrap(
    client.GET('/v1/sound-generation/explore', {
      params: { query: { ...(category ? { category } : {}), ...(search ? { search } : {}) } },
    }),
  );

export interface GenerateRequest {
  text: string;
  /** null: the server picks a duration for the scene. */
  durationSeconds: number | null;
  loop: boolean;
  promptInfluence: number;
  seed: number;
}

/** One made sound: its audio and the response's headers. */
export interface Generated {
  audio: Blob;
  id: string | null;
  credits: number | null;
  recipes: string[];
  seed: number;
}

/**
 * POST /v1/sound-generation (mp3, with Timbre's `seed`). Sent with fetch: the answer is audio
 * whose headers (cost, recipes, seed, history id) the page shows.
 */
export async function generateSound(req: GenerateRequest, signal?: AbortSignal): Promise<Generated> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'audio/mpeg, application/json' };
  const csrf = readCookie(CSRF_COOKIE);
  if (csrf) headers[CSRF_HEADER] = csrf;
  const res = await globalThis.fetch(GENERATE_PATH, {
    method: 'POST',
    credentials: 'same-origin',
    headers,
    signal,
    body: JSON.stringify({
      text: req.text,
      duration_seconds: req.durationSeconds,
      loop: req.loop,
      prompt_influence: req.promptInfluence,
      model_id: 'eleven_text_to_sound_v2',
      seed: req.seed,
    }),
  });
  if (!res.ok) {
    let body: unknown = null;
    try {
      body = await res.json();
    } catch {
      body = null;
    }
    throw errorFromBody(res.status, res.statusText, body);
  }
  const cost = res.headers.get('character-cost');
  const recipes = res.headers.get('x-timbre-sfx-recipes');
  return {
    audio: await res.blob(),
    id: res.headers.get('history-item-id'),
    credits: cost !== null && Number.isFinite(Number(cost)) ? Number(cost) : null,
    recipes: recipes ? recipes.split(',').filter(Boolean) : [],
    seed: Number(res.headers.get('x-timbre-sfx-seed') ?? req.seed),
  };
}

/** Seeds for one round of variations: consecutive from a random base. */
export function variationSeeds(n = VARIATIONS, random = Math.random): number[] {
  const base = Math.floor(random() * 1_000_000_000);
  return Array.from({ length: n }, (_, i) => base + i);
}

/** The message to show for a failed call: the server's own words when its error body had any. */
export function errorMessage(err: unknown): string {
  if (isApiError(err)) {
    const body = err.payload as { detail?: unknown } | null | undefined;
    if (body?.detail && err.message) return err.message;
    return httpErrorMessage(err);
  }
  if (err instanceof Error && err.message) return err.message;
  return httpErrorMessage(err);
}

/** The download name of a sound: the prompt's first words, file-system safe. */
export function soundFileName(text: string, extension = 'mp3', n?: number): string {
  const clean = text
    .replace(/[<>:"/\\|?*\u0000-\u001f]/g, '')
    .trim()
    .replace(/\s+/g, '_')
    .slice(0, 40);
  return `${clean || 'sound'}${n ? `_${n}` : ''}.${extension}`;
}

/** The extension of an output format such as mp3_44100_128. */
export function extensionOf(format: string): string {
  const codec = format.split('_')[0] || 'mp3';
  return codec === 'opus' ? 'ogg' : codec === 'ulaw' || codec === 'alaw' ? 'wav' : codec;
}

/** The estimated credits of a request (per whole second; an automatic duration is not known yet). */
export function estimatedCredits(durationSeconds: number | null): number | null {
  return durationSeconds == null ? null : Math.ceil(durationSeconds) * CREDITS_PER_SECOND;
}
