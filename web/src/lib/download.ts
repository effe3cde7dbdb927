/** Parses the file name from a Content-Disposition header (RFC 6266, incl. filename*). */
export function fileNameFromDisposition(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (star?.[2]) {
    try {
      return decodeURIComponent(star[2].trim().replace(/^"|"$/g, ''));
    } catch {
      /* fall through */
    }
  }
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(header);
  const name = plain?.[2] ?? plain?.[1];
  return name?.trim() || undefined;
}

/**
 * A safe download name (spec §5): forbidden characters removed, spaces to
 * underscores, base truncated to 20 characters, extension from the output
 * format (default mp3).
 */
export function downloadFileName(base: string, outputFormat?: string): string {
  const codec = (outputFormat ?? 'mp3').split('_')[0] || 'mp3';
  const ext = codec === 'pcm' ? 'pcm' : codec === 'ulaw' || codec === 'alaw' ? 'wav' : codec === 'opus' ? 'ogg' : codec;
  const cleaned = base
    .replace(/\.[a-z0-9]{2,4}$/i, '')
    .replace(/[<>:"/\\|?*\u0000-\u001f]/g, '')
    .trim()
    .replace(/\s+/g, '_')
    .slice(0, 20);
  return `${cleaned || 'audio'}.${ext}`;
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
