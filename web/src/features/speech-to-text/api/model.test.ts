import { describe, expect, it } from 'vitest';
import {
  activeWord,
  appendSettings,
  DEFAULT_SETTINGS,
  entityOfWords,
  keytermList,
  paragraphs,
  settingsProblems,
  speakerLabel,
  timedWords,
  transcriptionProgress,
  type TranscriptionSettings,
} from './model';
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

  it('labels channels and roles', () => {
    expect(speakerLabel('speaker_1', {}, true)).toBe('Channel 2');
    expect(speakerLabel('agent', {})).toBe('Agent');
    expect(speakerLabel('customer', { customer: 'Ann' })).toBe('Ann');
  });

  it('places entities on the words they cover (offsets in code points)', () => {
    const words = timedWords([w('Ça', 0, 1), sp(1, 1), w('4111', 1, 2), sp(2, 2), w('1111.', 2, 3), sp(3, 3), w('Ok', 3, 4)]);
    expect(words.map((x) => x.offset)).toEqual([0, 3, 8, 14]);
    expect(entityOfWords(words, [{ text: '4111 1111', entity_type: 'credit_card', start_char: 3, end_char: 12 }])).toEqual([-1, 0, 0, -1]);
    expect(entityOfWords(words, null)).toEqual([-1, -1, -1, -1]);
  });
});

const form = (s: Partial<TranscriptionSettings>) => {
  const f = new FormData();
  appendSettings(f, { ...DEFAULT_SETTINGS, ...s });
  return [...f.entries()].map(([k, v]) => `${k}=${String(v)}`);
};

describe('transcription settings', () => {
  it('sends nothing extra by default', () => {
    expect(form({})).toEqual([]);
  });

  it('sends diarization with its speakers and roles', () => {
    expect(form({ languageCode: 'en', diarize: true, numSpeakers: ' 2 ', detectSpeakerRoles: true })).toEqual([
      'language_code=en',
      'diarize=true',
      'num_speakers=2',
      'detect_speaker_roles=true',
    ]);
    // Roles without diarization are not sent (the API needs diarize for them).
    expect(form({ detectSpeakerRoles: true, numSpeakers: '3' })).toEqual([]);
  });

  it('sends multichannel without diarization, and no entities when combined', () => {
    expect(form({ multiChannel: true, diarize: true, numSpeakers: '2', detectSpeakerRoles: true, entityDetection: 'pii' })).toEqual([
      'use_multi_channel=true',
      'multichannel_output_style=separate',
      'entity_detection=pii',
    ]);
    expect(form({ multiChannel: true, multichannelStyle: 'combined', entityDetection: 'all' })).toEqual([
      'use_multi_channel=true',
      'multichannel_output_style=combined',
    ]);
  });

  it('sends redaction of what is detected, and each keyterm', () => {
    expect(form({ entityDetection: 'pci', redact: true, redactionMode: 'entity_type', keyterms: 'Timbre\n  speech   synthesis , ,ElevenLabs' })).toEqual([
      'entity_detection=pci',
      'entity_redaction=pci',
      'entity_redaction_mode=entity_type',
      'keyterms=Timbre',
      'keyterms=speech synthesis',
      'keyterms=ElevenLabs',
    ]);
  });

  it('finds what the API would refuse', () => {
    expect(settingsProblems(DEFAULT_SETTINGS)).toEqual({});
    expect(settingsProblems({ ...DEFAULT_SETTINGS, diarize: true, numSpeakers: '33' }).numSpeakers).toMatch(/1 to 32/);
    expect(settingsProblems({ ...DEFAULT_SETTINGS, diarize: true, numSpeakers: '1.5' }).numSpeakers).toBeDefined();
    expect(settingsProblems({ ...DEFAULT_SETTINGS, keyterms: 'one two three four five six' }).keyterms).toMatch(/too long/);
    expect(settingsProblems({ ...DEFAULT_SETTINGS, keyterms: 'x'.repeat(50) }).keyterms).toMatch(/too long/);
    expect(settingsProblems({ ...DEFAULT_SETTINGS, keyterms: 'x'.repeat(49) })).toEqual({});
    expect(keytermList(Array.from({ length: 1001 }, (_, i) => `k${i}`).join(','))).toHaveLength(1001);
    expect(settingsProblems({ ...DEFAULT_SETTINGS, keyterms: Array.from({ length: 1001 }, (_, i) => `k${i}`).join(',') }).keyterms).toMatch(/1000/);
  });
});
