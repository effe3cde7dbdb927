package server

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/prometheus/client_golang/prometheus"
)

// The web app's pages carry a Content-Security-Policy that lets index.html's inline theme script
// run (by its hash) and forbids framing, except the share pages, which other sites may embed.
func TestWebAppSecurityHeaders(t *testing.T) {
	index, err := os.ReadFile("../../web/index.html")
	if err != nil {
		t.Fatal(err)
	}
	script := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindSubmatch(index)
	if script == nil {
		t.Fatal("web/index.html has no inline script to check")
	}
	sum := sha256.Sum256(script[1])
	wantHash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	app := fstest.MapFS{"index.html": {Data: index}, "assets/app.js": {Data: []byte("console.log(1)")}}
	srv := New(Options{Registry: prometheus.NewRegistry(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), WebApp: app})

	get := func(path string) http.Header {
		rec := httptest.NewRecorder()
		srv.Handler.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 {
			t.Fatalf("GET %s: %d", path, rec.Code)
		}
		return rec.Header()
	}
	for _, p := range []string{"/", "/app/sign-in", "/assets/app.js"} {
		h := get(p)
		csp := h.Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self' "+wantHash) || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("%s: CSP %q", p, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "strict-origin-when-cross-origin" {
			t.Errorf("%s: headers %v", p, h)
		}
	}
	csp := get("/share/tok123").Get("Content-Security-Policy")
	if !strings.Contains(csp, "frame-ancestors *") || !strings.Contains(csp, wantHash) {
		t.Errorf("share page CSP %q", csp)
	}
	// No CORS on the web app or /api; the public API keeps it.
	for path, want := range map[string]string{"/": "", "/api/nothing": "", "/v1/nothing": "*"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Origin", "https://elsewhere.example")
		srv.Handler.ServeHTTP(rec, req)
		if got := rec.Header().Get("Access-Control-Allow-Origin"); got != want {
			t.Errorf("%s: Access-Control-Allow-Origin %q, want %q", path, got, want)
		}
	}
}
