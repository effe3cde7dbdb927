package server

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"timbre/internal/httpx"
)

func TestPublicURLFromRequest(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	var got string
	h := publicURLFromRequest(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = httpx.PublicURL(r.Context(), "http://configured")
	}), trusted)
	for _, c := range []struct {
		host, remote, proto, want string
	}{
		{"timbre.lan:8080", "192.168.1.9:5000", "", "http://timbre.lan:8080"},
		// Only a trusted proxy may say the browser used https.
		{"voice.example.com", "10.1.2.3:443", "https", "https://voice.example.com"},
		{"voice.example.com", "192.168.1.9:5000", "https", "http://voice.example.com"},
		// A Host that is not a plain host[:port] is ignored: the configured address is used.
		{"evil.example/path", "192.168.1.9:5000", "", "http://configured"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host, r.RemoteAddr = c.host, c.remote
		if c.proto != "" {
			r.Header.Set("X-Forwarded-Proto", c.proto)
		}
		got = ""
		h.ServeHTTP(httptest.NewRecorder(), r)
		if got != c.want {
			t.Errorf("Host %q from %s (proto %q): %q, want %q", c.host, c.remote, c.proto, got, c.want)
		}
	}
}
