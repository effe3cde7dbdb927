import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api';
import {
  baseName,
  checkFile,
  errorMessage,
  isolatedFileName,
  isolationProgress,
  microphoneError,
  recordingExtension,
  recordingFileName,
} from './model';

describe('voice isolator rules', () => {
  it('estimates progress that grows with time, follows the duration and never claims to be done', () => {
    expect(isolationProgress(0, 60)).toBe(0);
    const early = isolationProgress(2, 60);
    const later = isolationProgress(6, 60);
    expect(later).toBeGreaterThan(early);
    // A long file moves slower than a short one.
    expect(isolationProgress(2, 600)).toBeLessThan(isolationProgress(2, 6));
    expect(isolationProgress(10_000, 60)).toBe(0.95);
    expect(isolationProgress(3)).toBeGreaterThan(0);
  });

  it('names the downloads after the source, safe for file systems', () => {
    expect(isolatedFileName('noisy interview.mp3')).toBe('noisy_interview_isolated.mp3');
    expect(isolatedFileName('a/b:c?.wav')).toBe('bc_isolated.mp3');
    expect(isolatedFileName('')).toBe('audio_isolated.mp3');
    expect(isolatedFileName(null)).toBe('audio_isolated.mp3');
    expect(baseName('C:\\x\\talk.m4a')).toBe('talk');
    expect(baseName('.hidden')).toBe('.hidden');
  });

  it('names recordings by their time and container', () => {
    const when = new Date(2026, 10, 24, 9, 5, 3);
    expect(recordingFileName(when, 'audio/webm;codecs=opus')).toBe('Recording 2026-11-24 09-05-03.webm');
    expect(recordingExtension('audio/ogg;codecs=opus')).toBe('ogg');
    expect(recordingExtension('audio/mp4')).toBe('m4a');
  });

  it('refuses empty and oversize files before upload', () => {
    expect(checkFile(new Blob([]))).toBe('The file is empty.');
    expect(checkFile(new Blob(['x']))).toBeUndefined();
    expect(checkFile({ size: 600 * 1024 * 1024 } as Blob)).toMatch(/larger than 500 MB/);
  });

  it("uses the server's message when its error body had one", () => {
    expect(errorMessage(new ApiError(502, 'The voice isolator failed: x', 'isolation_failed', { detail: { message: 'The voice isolator failed: x' } }))).toBe(
      'The voice isolator failed: x',
    );
    // No body: a 5xx falls back to the generic text, not the bare status line.
    expect(errorMessage(new ApiError(502, 'Bad Gateway'))).not.toBe('Bad Gateway');
    expect(errorMessage(new Error('The upload failed: the server could not be reached.'))).toBe(
      'The upload failed: the server could not be reached.',
    );
  });

  it('explains microphone failures', () => {
    expect(microphoneError(new DOMException('x', 'NotAllowedError'))).toMatch(/denied/);
    expect(microphoneError(new DOMException('x', 'NotFoundError'))).toMatch(/No microphone/);
    expect(microphoneError(new DOMException('busy', 'NotReadableError'))).toMatch(/in use/);
    expect(microphoneError(new Error('odd'))).toBe('The microphone could not be opened: odd');
  });
});
