/** Decodes RFC 8187 percent-encoding in the given charset (UTF-8, or ISO-8859-1 byte by byte). */
function decodeExtValue(charset: string, encoded: string): string | undefined {
  if (/^utf-?8$/i.test(charset)) {
    try {
      return decodeURIComponent(encoded);
    } catch {
      return undefined;
    }
  }
  if (/^(iso-8859-1|latin1|us-ascii)$/i.test(charset)) {
    return encoded.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return undefined;
}

function unquote(value: string): string {
  const v = value.trim();
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) return v.slice(1, -1).replace(/\\(.)/g, '$1');
  return v;
}

/** Keeps the last path segment: a header must not choose a folder. */
function baseName(name: string): string | undefined {
  const base = name.split(/[/\\]/).pop()?.trim();
  return base && base !== '.' && base !== '..' ? base : undefined;
}

/**
 * The file name of a Content-Disposition header (RFC 6266): `filename*=UTF-8''…`
 * (RFC 8187, preferred) or `filename="…"` (quoted or a bare token). Either may
 * come first; both may be present.
 */
export function fileNameFromDisposition(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const params = new Map<string, string>();
  const re = /;\s*([^\s=;]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g;
  for (const m of `;${header}`.matchAll(re)) {
    const key = m[1]!.toLowerCase();
    if (!params.has(key)) params.set(key, m[2]!);
  }
  const star = params.get('filename*');
  if (star !== undefined) {
    const ext = /^([^']*)'[^']*'(.*)$/.exec(unquote(star));
    const decoded = ext ? decodeExtValue(ext[1]!, ext[2]!.trim()) : undefined;
    const name = decoded && baseName(decoded);
    if (name) return name;
  }
  const plain = params.get('filename');
  if (plain !== undefined) {
    const name = baseName(unquote(plain));
    if (name) return name;
  }
  return undefined;
}

/** File extension of an output format such as mp3_44100_128 (default mp3). */
export function extensionFor(outputFormat?: string | null): string {
  const codec = (outputFormat ?? 'mp3').split('_')[0] || 'mp3';
  if (codec === 'pcm') return 'pcm';
  if (codec === 'ulaw' || codec === 'alaw' || codec === 'wav') return 'wav';
  if (codec === 'opus') return 'ogg';
  return codec;
}

/**
 * A safe download name (spec §5): forbidden characters removed, spaces to
 * underscores, base truncated to 20 characters, extension from the output
 * format (default mp3).
 */
export function downloadFileName(base: string, outputFormat?: string | null): string {
  const ext = extensionFor(outputFormat);
  const cleaned = base
    .replace(/\.[a-z0-9]{2,4}$/i, '')
    .replace(/[<>:"/\\|?*\u0000-\u001f]/g, '')
    .trim()
    .replace(/\s+/g, '_')
    .slice(0, 20);
  return `${cleaned || 'audio'}.${ext}`;
}

interface NamedHistoryItem {
  date_unix: number;
  voice_name?: string | null;
  text?: string | null;
  settings?: Record<string, unknown> | null;
  output_format?: string | null;
}

const pct = (x: unknown) => Math.round((typeof x === 'number' && Number.isFinite(x) ? x : 0) * 100);

/**
 * The download name of a history item, built like the server's (spec §5, §9):
 * Timbre_<date>_<voice>_s<stability>_sb<similarity>_se<style>[_b]_<text>.<ext>,
 * voice settings as percent values, forbidden characters removed, spaces as
 * underscores, the text cut to 20 characters.
 */
export function historyFileName(item: NamedHistoryItem): string {
  const clean = (value: string | null | undefined, max: number) =>
    [...(value ?? '').trim().replace(/ /g, '_').replace(/[^\p{L}\p{N}_.-]/gu, '')].slice(0, max).join('');
  const s = item.settings ?? {};
  const date = new Date(item.date_unix * 1000).toISOString().slice(0, 19).replace(/:/g, '_');
  const boost = s.use_speaker_boost === true ? '_b' : '';
  const name = `Timbre_${date}_${clean(item.voice_name, 40)}_s${pct(s.stability)}_sb${pct(s.similarity_boost)}_se${pct(s.style)}${boost}_${clean(item.text, 20)}`;
  return `${name.slice(0, 250).replace(/_+$/, '')}.${extensionFor(item.output_format)}`;
}

/** Saves a blob through a temporary <a download>. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
