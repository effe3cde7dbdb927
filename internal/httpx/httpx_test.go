package httpx

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
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

func TestAudioQueryParameters(t *testing.T) {
	q := url.Values{}
	var v errs.Validator
	if f := OutputFormat(q, &v, "mp3_44100_128", []string{"mp3_44100_128", "pcm_16000"}); f.Name != "mp3_44100_128" {
		t.Errorf("default format %q", f.Name)
	}
	if !QueryBool(q, &v, "enable_logging", true) {
		t.Error("absent boolean is not its default")
	}
	StreamingLatency(q, &v)
	if err := v.Err(); err != nil {
		t.Fatalf("absent parameters: %v", err)
	}

	q = url.Values{"output_format": {"pcm_16000"}, "enable_logging": {"false"}, "optimize_streaming_latency": {"4"}}
	if f := OutputFormat(q, &v, "mp3_44100_128", []string{"mp3_44100_128", "pcm_16000"}); f.Name != "pcm_16000" || f.SampleRate != 16000 {
		t.Errorf("format %+v", f)
	}
	if QueryBool(q, &v, "enable_logging", true) {
		t.Error("enable_logging=false read as true")
	}
	StreamingLatency(q, &v)
	if err := v.Err(); err != nil {
		t.Fatalf("valid parameters: %v", err)
	}

	// A known format outside the route's list, a bad boolean and a latency out of range: each
	// is named.
	q = url.Values{"output_format": {"opus_48000_64"}, "enable_logging": {"maybe"}, "optimize_streaming_latency": {"5"}}
	OutputFormat(q, &v, "mp3_44100_128", []string{"mp3_44100_128"})
	QueryBool(q, &v, "enable_logging", true)
	StreamingLatency(q, &v)
	ve, ok := v.Err().(*errs.Validation)
	if !ok || len(ve.Fields) != 3 {
		t.Fatalf("errors %v", v.Err())
	}
	for i, want := range []string{"[query output_format]", "[query enable_logging]", "[query optimize_streaming_latency]"} {
		if got := fmt.Sprint(ve.Fields[i].Loc); got != want {
			t.Errorf("error %d names %s, want %s", i, got, want)
		}
	}
	if !strings.Contains(ve.Fields[0].Msg, "Use one of: mp3_44100_128.") {
		t.Errorf("format message %q", ve.Fields[0].Msg)
	}
}
