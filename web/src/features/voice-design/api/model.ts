/** The reference's bounds of a description (a remix may be as short as "older"). */
export const MAX_DESCRIPTION = 1000;
export const MIN_DESCRIPTION = 20;
export const MIN_REMIX_DESCRIPTION = 5;
export const MIN_TEXT = 100;
export const MAX_TEXT = 1000;

/** The honest note the page shows: no neural voice designer runs here. */
export const PARAMETRIC_NOTE = 'Designed voices are parametric: a base voice shaped in pitch, pace and timbre';

/** Example prompts: each uses words the designer understands (gender, age, accent, pitch, pace, texture, mood). */
export const EXAMPLES = [
  'A deep, slow elderly man with a calm, warm voice and an American accent',
  'A high-pitched young girl, excited and fast, telling a story',
  'A raspy middle-aged Scottish man with a husky, measured delivery',
  'A bright, upbeat young British woman, clear and friendly',
  'A posh, authoritative British gentleman speaking slowly',
];

/** What is wrong with a description, or null when it can be sent. */
export function descriptionProblem(text: string, remix = false): string | null {
  const n = [...text.trim()].length;
  const min = remix ? MIN_REMIX_DESCRIPTION : MIN_DESCRIPTION;
  if (n < min) return `Describe the voice in at least ${min} characters.`;
  if (n > MAX_DESCRIPTION) return `The description is ${n - MAX_DESCRIPTION} characters too long (at most ${MAX_DESCRIPTION}).`;
  return null;
}

/** What is wrong with the preview text (empty: the server writes one), or null. */
export function textProblem(text: string): string | null {
  const n = [...text.trim()].length;
  if (n === 0) return null;
  if (n < MIN_TEXT || n > MAX_TEXT) return `The preview text needs ${MIN_TEXT}–${MAX_TEXT} characters (${n} now), or leave it empty.`;
  return null;
}

/** A preview's audio as a URL the <audio> element plays. */
export function previewAudioUrl(p: { audio_base_64: string; media_type: string }, generatedVoiceId: string): string {
  if (!p.audio_base_64) return `/v1/text-to-voice/${encodeURIComponent(generatedVoiceId)}/stream`;
  return `data:${p.media_type};base64,${p.audio_base_64}`;
}

/** "Preview 2 · 6.4 s" */
export function previewLabel(index: number, seconds: number): string {
  return `Preview ${index + 1} · ${seconds.toFixed(1)} s`;
}
