/**
 * Text to dialogue helpers shared by the text-to-speech page (dialogue mode) and the history
 * (dialogue items): spec §5's rules for stored dialogue and bracketed audio tags.
 */

/** Spec §5 and §9: at most 50 lines, 3000 characters in all. */
export const DIALOGUE = { maxLines: 50, maxCharacters: 3000 } as const;

export interface DialogueLine {
  text: string;
  voice_id: string;
  voice_name?: string;
}

/**
 * A stored dialogue (a history item's `dialogue`, or JSON text of one), kept only if every
 * entry has a text and a voice_id, no text is empty and there are at most 50 entries; anything
 * else, or what does not parse, gives an empty list.
 */
export function parseStoredDialogue(raw: unknown): DialogueLine[] {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return [];
    }
  }
  if (!Array.isArray(value) || value.length === 0 || value.length > DIALOGUE.maxLines) return [];
  const out: DialogueLine[] = [];
  for (const e of value) {
    if (!e || typeof e !== 'object') return [];
    const { text, voice_id, voice_name } = e as Record<string, unknown>;
    if (typeof text !== 'string' || typeof voice_id !== 'string' || !voice_id || text.trim() === '') return [];
    out.push({ text, voice_id, ...(typeof voice_name === 'string' ? { voice_name } : {}) });
  }
  return out;
}

const TAG = /\[[^[\]\n]{1,40}\]/g;

/** Whether the text holds a bracketed audio tag such as [laughs]. */
export function hasAudioTags(text: string): boolean {
  return new RegExp(TAG.source).test(text);
}

/** Collapses the whitespace around tags to one space (none at the ends): "Hi  [laughs]there" → "Hi [laughs] there". */
export function normalizeTagSpacing(text: string): string {
  if (!hasAudioTags(text)) return text;
  return text.replace(TAG, (t) => ` ${t} `).replace(/\s+/g, ' ').trim();
}

/** The text without its tags, spaces tidied: what is spoken. */
export function hideAudioTags(text: string): string {
  return text.replace(TAG, ' ').replace(/\s+/g, ' ').trim();
}

/** The text as displayed: tags hidden or kept, whitespace around tags normalised either way. */
export function displayDialogueText(text: string, hideTags: boolean): string {
  return hideTags ? hideAudioTags(text) : normalizeTagSpacing(text);
}
