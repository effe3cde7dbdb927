/**
 * The server's own links (voice previews, share links) as paths, so they work by whatever address
 * the user reached the app, not the address the server was configured with. Other URLs pass through.
 */
export function serverPath(url: string): string {
  try {
    const u = new URL(url, window.location.origin);
    if (u.pathname.startsWith('/api/') || u.pathname.startsWith('/share/')) return u.pathname + u.search + u.hash;
  } catch {
    /* not a URL: leave it */
  }
  return url;
}
