package httpx

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"timbre/internal/errs"
)

func TestDecodeJSONNamesInvalidUTF8(t *testing.T) {
	cases := map[string]string{
		"{\"text\":\"caf\xe9\"}":                                     "[body text]",
		"{\"a\":1,\"voice_settings\":{\"style\":\"\xff\"}}":          "[body voice_settings style]",
		"{\"list\":[\"ok\",{\"x\":\"ok\"},{\"name\":\"\xc3\"}]}":     "[body list 2 name]",
		"{\"list\":[[\"ok\"],[\"ok\",\"\xfe\"]],\"after\":\"fine\"}": "[body list 1 1]",
		"{\"ke\xffy\":\"value\"}":                                    "[body ke\ufffdy]",
		`{"ok":"\ud83d\ude00","text":"lone \ud800 high"}`:            "[body text]",
		`{"text":"lone low \uDC00"}`:                                 "[body text]",
		`{"text":"high at the end \ud800"}`:                          "[body text]",
		`{"text":"high then letter \ud800\u0041"}`:                   "[body text]",
	}
	for body, want := range cases {
		r := httptest.NewRequest("POST", "/", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		var dst map[string]any
		err := DecodeJSON(r, 1<<20, &dst)
		ve, ok := err.(*errs.Validation)
		if !ok || len(ve.Fields) != 1 || ve.Fields[0].Type != "unicode_error" {
			t.Errorf("%q: %v", body, err)
			continue
		}
		if got := fmt.Sprint(ve.Fields[0].Loc); got != want {
			t.Errorf("%q: loc %s, want %s", body, got, want)
		}
	}
}

func TestDecodeJSONKeepsValidText(t *testing.T) {
	for _, body := range []string{`{"text":"\ud83d\ude00 caf\u00e9 \\ud800 is text"}`, "{\"text\":\"café 😀 \\\\\"}"} {
		r := httptest.NewRequest("POST", "/", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		var dst struct{ Text string }
		if err := DecodeJSON(r, 1<<20, &dst); err != nil || strings.ContainsRune(dst.Text, '\ufffd') {
			t.Errorf("%s: %v %q", body, err, dst.Text)
		}
	}
}

func TestJSONContentTypes(t *testing.T) {
	for ct, want := range map[string]bool{"application/json": true, "application/json; charset=utf-8": true, "Application/JSON": true,
		"application/merge-patch+json": true, "text/plain": false, "": false, "application/x-www-form-urlencoded": false, "multipart/form-data; boundary=x": false} {
		if IsJSONContentType(ct) != want {
			t.Errorf("IsJSONContentType(%q) = %v", ct, !want)
		}
	}
}

func TestSameOrigin(t *testing.T) {
	rt := &Router{PublicURL: "https://timbre.example.com"}
	cases := []struct {
		host, origin, fetchSite string
		want                    bool
	}{
		{"localhost:8080", "", "", true},                          // curl, SDKs
		{"localhost:8080", "http://localhost:8080", "", true},     // the app itself
		{"10.0.0.5:8080", "https://timbre.example.com", "", true}, // behind a proxy, public URL
		{"localhost:8080", "", "same-origin", true},
		{"localhost:8080", "", "none", true},
		{"localhost:8080", "https://evil.example", "", false},
		{"localhost:8080", "http://localhost:9999", "", false},
		{"localhost:8080", "http://timbre.example.com", "", false}, // the public host over another scheme
		{"localhost:8080", "null", "", false},
		{"localhost:8080", "", "cross-site", false},
		{"localhost:8080", "", "same-site", false},
	}
	for _, c := range cases {
		r := httptest.NewRequest(http.MethodPost, "/api/auth/sign-in", nil)
		r.Host = c.host
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if c.fetchSite != "" {
			r.Header.Set("Sec-Fetch-Site", c.fetchSite)
		}
		if got := rt.sameOrigin(r); got != c.want {
			t.Errorf("host %s origin %q site %q: %v, want %v", c.host, c.origin, c.fetchSite, got, c.want)
		}
	}
}
