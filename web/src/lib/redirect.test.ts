import { describe, expect, it, vi } from 'vitest';
import { safeRedirect } from './redirect';

const origin = 'https://timbre.example';
const fallback = '/app/speech-synthesis/text-to-speech';

describe('safeRedirect', () => {
  it('honours same-origin /app/ paths', () => {
    expect(safeRedirect('/app/usage', origin)).toBe('/app/usage');
    expect(safeRedirect('/app/settings/api-keys?x=1#y', origin)).toBe('/app/settings/api-keys?x=1#y');
  });

  it('falls back for anything else and logs it', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    for (const bad of [
      null,
      '',
      'https://evil.example/app/usage',
      '//evil.example/app/usage',
      '/\\evil.example/app',
      'javascript:alert(1)',
      '/pricing',
      '/app',
      '/app/sign-in',
      'app/usage',
    ]) {
      expect(safeRedirect(bad, origin)).toBe(fallback);
    }
    expect(warn).toHaveBeenCalled();
  });
});
