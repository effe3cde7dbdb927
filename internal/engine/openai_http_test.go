package engine

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The shared client of the OpenAI-compatible adapters: the /v1 endpoint however the base URL
// is written, the bearer key and headers, the body read up to a limit, and a request cut short
// by its context answering the context's error.
func TestOpenAIServer(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		if r.URL.Path != "/v1/audio/x" {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		_, _ = w.Write([]byte("echo:" + string(body)))
	}))
	defer srv.Close()
	for _, base := range []string{srv.URL, srv.URL + "/", srv.URL + "/v1", srv.URL + "/v1/"} {
		s := newOpenAIServer("test", base, "sk-1", "/audio/x", nil)
		if s.endpoint != srv.URL+"/v1/audio/x" || s.client != http.DefaultClient {
			t.Fatalf("%s: endpoint %s", base, s.endpoint)
		}
	}
	s := newOpenAIServer("test", srv.URL, "sk-1", "/audio/x", srv.Client())
	resp, data, err := s.post(context.Background(), "text/plain", "application/json", strings.NewReader("hello"), 0, "it")
	if err != nil || resp.StatusCode != 200 || string(data) != "echo:hello" {
		t.Fatalf("%v %q %v", resp, data, err)
	}
	if got.Get("Authorization") != "Bearer sk-1" || got.Get("Content-Type") != "text/plain" || got.Get("Accept") != "application/json" {
		t.Fatalf("headers %v", got)
	}
	if _, data, _ := s.post(context.Background(), "text/plain", "", strings.NewReader("hello"), 7, "it"); string(data) != "echo:he" {
		t.Fatalf("limited read %q", data)
	}
	if _, _, _ = newOpenAIServer("test", srv.URL, "", "/audio/x", srv.Client()).post(context.Background(), "text/plain", "", strings.NewReader(""), 0, "it"); got.Get("Authorization") != "" || got.Get("Accept") != "" {
		t.Fatalf("headers without a key or accept: %v", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := s.post(ctx, "text/plain", "", strings.NewReader(""), 0, "it"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	down := newOpenAIServer("down", "http://127.0.0.1:1", "", "/audio/x", nil)
	if _, _, err := down.post(context.Background(), "text/plain", "", strings.NewReader(""), 0, "it"); err == nil || !strings.HasPrefix(err.Error(), "down: ") {
		t.Fatalf("unreachable: %v", err)
	}
}
