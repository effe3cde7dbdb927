import { describe, expect, it } from 'vitest';
import { humanizeLabel } from './format';

describe('humanizeLabel', () => {
  it('turns raw label values into words', () => {
    expect(humanizeLabel('middle_aged')).toBe('Middle aged');
    expect(humanizeLabel('american')).toBe('American');
    expect(humanizeLabel('social_media')).toBe('Social media');
  });
});
