import { describe, expect, it } from 'vitest';
import { activeWord, paragraphs, speakerLabel, timedWords, transcriptionProgress } from './model';
import type { TranscriptWord } from './index';

const w = (text: string, start: number, end: number, speaker?: string): TranscriptWord => ({
  text,
  start,
  end,
  type: 'word',
  logprob: 0,
  speaker_id: speaker,
});
const sp = (start: number, end: number): TranscriptWord => ({ text: ' ', start, end, type: 'spacing', logprob: 0 });

const entries = [w('Hello', 0, 0.4, 'speaker_0'), sp(0.4, 0.5), w('there.', 0.5, 1, 'speaker_0'), sp(1, 3), w('Hi', 3, 3.3, 'speaker_1'), sp(3.3, 3.4), w('again', 3.4, 3.9, 'speaker_1')];

describe('transcript model', () => {
  it('finds the word being spoken, none in pauses', () => {
    const words = timedWords(entries);
    expect(words.map((x) => x.index)).toEqual([0, 2, 4, 6]);
    expect(activeWord(words, 0)).toBe(0);
    expect(activeWord(words, 0.45)).toBe(-1);
    expect(activeWord(words, 0.7)).toBe(1);
    expect(activeWord(words, 2)).toBe(-1);
    expect(activeWord(words, 3.5)).toBe(3);
    expect(activeWord(words, 9)).toBe(-1);
    expect(activeWord([], 1)).toBe(-1);
  });

  it('makes paragraphs at speaker changes and long pauses', () => {
    const words = timedWords(entries);
    expect(paragraphs(words).map((p) => [p.speaker, p.words])).toEqual([
      ['speaker_0', [0, 1]],
      ['speaker_1', [2, 3]],
    ]);
    const oneSpeaker = timedWords([w('a', 0, 1), w('b', 1.1, 2), w('c', 4, 5)]);
    expect(paragraphs(oneSpeaker).map((p) => [p.speaker, p.words, p.start])).toEqual([
      ['speaker_0', [0, 1], 0],
      ['speaker_0', [2], 4],
    ]);
  });

  it('labels speakers from one, or by the name given', () => {
    expect(speakerLabel('speaker_0', {})).toBe('Speaker 1');
    expect(speakerLabel('speaker_11', undefined)).toBe('Speaker 12');
    expect(speakerLabel('speaker_0', { speaker_0: 'Ann' })).toBe('Ann');
    expect(speakerLabel('narrator', {})).toBe('narrator');
  });

  it('estimates transcription progress, never finishing before the answer', () => {
    expect(transcriptionProgress(0, 40)).toBe(0);
    expect(transcriptionProgress(5.5, 40)).toBeCloseTo(0.5);
    expect(transcriptionProgress(1000, 40)).toBe(0.95);
    expect(transcriptionProgress(5.5, undefined)).toBeCloseTo(0.5);
  });
});
