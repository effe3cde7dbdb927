import { describe, expect, it } from 'vitest';
import { serverPath } from './url';

describe('serverPath', () => {
  it("turns the server's absolute links into paths", () => {
    expect(serverPath('http://localhost:8080/api/voices/v1/preview.mp3')).toBe('/api/voices/v1/preview.mp3');
    expect(serverPath('http://10.0.0.5:8080/share/abc?x=1')).toBe('/share/abc?x=1');
  });
  it('leaves other URLs alone', () => {
    expect(serverPath('https://cdn.example.com/audio.mp3')).toBe('https://cdn.example.com/audio.mp3');
    expect(serverPath('/p/aria.mp3')).toBe('/p/aria.mp3');
  });
});
