import { describe, expect, it } from 'vitest';
import { downloadFileName, extensionFor, fileNameFromDisposition, historyFileName } from './download';

describe('Content-Disposition file names', () => {
  it('reads filename="…" and bare tokens', () => {
    expect(fileNameFromDisposition('attachment; filename="Timbre_Brian_Hello.mp3"')).toBe('Timbre_Brian_Hello.mp3');
    expect(fileNameFromDisposition('attachment; filename=history.zip')).toBe('history.zip');
    expect(fileNameFromDisposition('attachment; filename="a \\"quoted\\" name.mp3"')).toBe('a "quoted" name.mp3');
    expect(fileNameFromDisposition('attachment; filename="semi;colon.mp3"')).toBe('semi;colon.mp3');
  });

  it("reads filename*=UTF-8''… (RFC 8187), in any case", () => {
    expect(fileNameFromDisposition("attachment; filename*=UTF-8''%C3%A9t%C3%A9_%E2%9C%93.mp3")).toBe('été_✓.mp3');
    // Go's mime.FormatMediaType writes the charset in lower case.
    expect(fileNameFromDisposition("attachment; filename*=utf-8''Timbre_Zo%C3%AB.mp3")).toBe('Timbre_Zoë.mp3');
    expect(fileNameFromDisposition("attachment; filename*=UTF-8'en'na%20me.mp3")).toBe('na me.mp3');
    expect(fileNameFromDisposition("attachment; filename*=iso-8859-1''caf%E9.mp3")).toBe('café.mp3');
  });

  it('prefers filename* over filename, whichever comes first', () => {
    const star = "filename*=UTF-8''Zo%C3%AB.mp3";
    expect(fileNameFromDisposition(`attachment; filename="Zoe.mp3"; ${star}`)).toBe('Zoë.mp3');
    expect(fileNameFromDisposition(`attachment; ${star}; filename="Zoe.mp3"`)).toBe('Zoë.mp3');
  });

  it('falls back to filename when filename* cannot be decoded', () => {
    expect(fileNameFromDisposition("attachment; filename*=UTF-8''%E0%A4%A; filename=\"plain.mp3\"")).toBe('plain.mp3');
    expect(fileNameFromDisposition("attachment; filename*=koi8-r''%C1; filename=\"plain.mp3\"")).toBe('plain.mp3');
  });

  it('does not let a header choose a folder, and ignores missing names', () => {
    expect(fileNameFromDisposition('attachment; filename="../../etc/passwd"')).toBe('passwd');
    expect(fileNameFromDisposition("attachment; filename*=UTF-8''..%2F..%2Fx.mp3")).toBe('x.mp3');
    expect(fileNameFromDisposition('attachment')).toBeUndefined();
    expect(fileNameFromDisposition('inline; name="x"')).toBeUndefined();
    expect(fileNameFromDisposition(null)).toBeUndefined();
    expect(fileNameFromDisposition('attachment; filename=""')).toBeUndefined();
  });
});

describe('file names made here', () => {
  it('extension from the output format', () => {
    expect(extensionFor('mp3_44100_128')).toBe('mp3');
    expect(extensionFor('wav_44100')).toBe('wav');
    expect(extensionFor('ulaw_8000')).toBe('wav');
    expect(extensionFor('opus_48000_128')).toBe('ogg');
    expect(extensionFor(undefined)).toBe('mp3');
  });

  it('safe name: forbidden characters removed, spaces to underscores, 20 characters', () => {
    expect(downloadFileName('Hello: world / what "is" this?', 'mp3_44100_128')).toBe('Hello_world_what_is_.mp3');
    expect(downloadFileName('', undefined)).toBe('audio.mp3');
  });

  it('history item name like the server: date, voice, settings as percent, text cut to 20', () => {
    expect(
      historyFileName({
        date_unix: 1_700_000_000,
        voice_name: 'Brian',
        text: 'Welcome to Timbre, the self-hosted voice platform.',
        settings: { stability: 0.5, similarity_boost: 0.75, style: 0, use_speaker_boost: true },
        output_format: 'mp3_44100_128',
      }),
    ).toBe('Timbre_2023-11-14T22_13_20_Brian_s50_sb75_se0_b_Welcome_to_Timbre_th.mp3');
    expect(historyFileName({ date_unix: 0, voice_name: null, text: null, settings: null, output_format: 'wav_44100' })).toBe(
      'Timbre_1970-01-01T00_00_00__s0_sb0_se0.wav',
    );
  });
});
