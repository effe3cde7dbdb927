import { describe, expect, it } from 'vitest';
import { descriptionProblem, MAX_DESCRIPTION, previewAudioUrl, previewLabel, textProblem } from './model';

describe('voice design rules', () => {
  it('bounds the description as the API does (20–1000; a remix from 5)', () => {
    expect(descriptionProblem('too short')).toMatch(/at least 20/);
    expect(descriptionProblem('a deep elderly male voice')).toBeNull();
    expect(descriptionProblem('x'.repeat(MAX_DESCRIPTION + 3))).toMatch(/3 characters too long/);
    expect(descriptionProblem('older', true)).toBeNull();
    expect(descriptionProblem('old', true)).toMatch(/at least 5/);
  });
  it('takes an empty preview text or 100–1000 characters', () => {
    expect(textProblem('')).toBeNull();
    expect(textProblem('short')).toMatch(/100–1000/);
    expect(textProblem('a'.repeat(150))).toBeNull();
  });
  it('plays the returned audio, or streams a preview sent without it', () => {
    expect(previewAudioUrl({ audio_base_64: 'AAAA', media_type: 'audio/mpeg' }, 'g1')).toBe('data:audio/mpeg;base64,AAAA');
    expect(previewAudioUrl({ audio_base_64: '', media_type: 'audio/mpeg' }, 'g 1')).toBe('/v1/text-to-voice/g%201/stream');
    expect(previewLabel(1, 6.42)).toBe('Preview 2 · 6.4 s');
  });
});
