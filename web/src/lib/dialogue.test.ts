import { describe, expect, it } from 'vitest';
import { DIALOGUE, displayDialogueText, hasAudioTags, normalizeTagSpacing, parseStoredDialogue } from './dialogue';

describe('parseStoredDialogue', () => {
  it('keeps a well-formed dialogue', () => {
    const d = [
      { text: 'Hi.', voice_id: 'a', voice_name: 'Rachel' },
      { text: 'Hello!', voice_id: 'b' },
    ];
    expect(parseStoredDialogue(d)).toEqual(d);
    expect(parseStoredDialogue(JSON.stringify(d))).toEqual(d);
  });
  it('drops the whole dialogue when an entry is incomplete, empty, or there are too many', () => {
    expect(parseStoredDialogue([{ text: 'Hi.' }])).toEqual([]);
    expect(parseStoredDialogue([{ text: '  ', voice_id: 'a' }])).toEqual([]);
    expect(parseStoredDialogue(Array.from({ length: DIALOGUE.maxLines + 1 }, () => ({ text: 'x', voice_id: 'a' })))).toEqual([]);
    expect(parseStoredDialogue('{not json')).toEqual([]);
    expect(parseStoredDialogue(null)).toEqual([]);
  });
});

describe('audio tags', () => {
  it('finds, spaces and hides tags', () => {
    expect(hasAudioTags('plain text')).toBe(false);
    expect(hasAudioTags('oh [laughs] no')).toBe(true);
    expect(normalizeTagSpacing('Hi   [laughs]there ')).toBe('Hi [laughs] there');
    expect(displayDialogueText('Hi [laughs]there', true)).toBe('Hi there');
    expect(displayDialogueText('Hi [laughs]there', false)).toBe('Hi [laughs] there');
  });
});
