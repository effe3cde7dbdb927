import { describe, expect, it } from 'vitest';
import { checkFiles, formatBytes, formatDuration, MAX_FILE_BYTES, MAX_FILES, validateClone } from './model';

const file = (name: string, size: number, type = 'audio/mpeg') => new File([new Uint8Array(size)], name, { type });

describe('clone form checks', () => {
  it('takes audio files within the limits', () => {
    expect(checkFiles([file('a.mp3', 1000), file('b.wav', 2000, 'audio/wav')])).toBeUndefined();
  });
  it('refuses no files, empty, oversize, non-audio and too many files, naming the file', () => {
    expect(checkFiles([])).toMatch(/at least one/);
    expect(checkFiles([file('empty.mp3', 0)])).toMatch(/"empty.mp3" is empty/);
    expect(checkFiles([file('big.mp3', MAX_FILE_BYTES + 1)])).toMatch(/"big.mp3" is larger than 25 MB/);
    expect(checkFiles([file('notes.txt', 10, 'text/plain')])).toMatch(/not an audio file/);
    expect(checkFiles(Array.from({ length: MAX_FILES + 1 }, (_, i) => file(`${i}.mp3`, 10)))).toMatch(/At most 25/);
  });
  it('needs a name and the consent', () => {
    const ok = { name: 'Me', description: '', files: [file('a.mp3', 10)], removeBackgroundNoise: false, consent: true };
    expect(validateClone(ok)).toEqual({});
    expect(validateClone({ ...ok, name: '  ' }).name).toMatch(/name/);
    expect(validateClone({ ...ok, consent: false }).consent).toMatch(/right to clone/);
    expect(validateClone({ ...ok, description: 'x'.repeat(1001) }).description).toMatch(/1000/);
  });
  it('formats sizes and durations', () => {
    expect(formatBytes(1536 * 1024)).toBe('1.5 MB');
    expect(formatBytes(100)).toBe('1 KB');
    expect(formatDuration(65.4)).toBe('1:05');
    expect(formatDuration(null)).toBe('–');
  });
});
