package server

import (
	"net/http"
	"net/netip"
	"strings"

	"timbre/internal/httpx"
)

// publicURLFromRequest records the address each request came by, so links in mail point where
// the user is (used when no TIMBRE_PUBLIC_URL is configured). Behind a trusted proxy its
// X-Forwarded-Proto gives the scheme.
func publicURLFromRequest(next http.Handler, trusted []netip.Prefix) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := httpx.RequestOrigin(r)
		if origin != "" && r.TLS == nil && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
			if peer, err := peerIP(r.RemoteAddr); err == nil && inAny(trusted, peer) {
				origin = "https://" + strings.TrimPrefix(origin, "http://")
			}
		}
		if origin != "" {
			r = r.WithContext(httpx.WithPublicURL(r.Context(), origin))
		}
		next.ServeHTTP(w, r)
	})
}
