package app_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"timbre/internal/store"
)

// A page on another website must not be able to drive the unauthenticated auth routes (a
// password reset read back from the development mailbox took accounts over): no CORS outside
// /v1 and /v2, JSON bodies only, and cross-site browser POSTs refused.
func TestCrossSiteRequestsRefused(t *testing.T) {
	e := newEnv(t, store.SQLite)
	reset := map[string]any{"email": "owner@example.com"}
	evil := "https://evil.example"

	// What the attacking page could send without a preflight: text/plain, from its own origin.
	r := e.do("POST", "/api/auth/send-password-reset-email", "", `{"email":"owner@example.com"}`, "Content-Type", "text/plain", "Origin", evil)
	wantRefused(t, r, http.StatusForbidden, "cross_site_request")
	r = e.do("POST", "/api/auth/sign-in", "", map[string]any{"email": "owner@example.com", "password": "correct horse battery"}, "Origin", evil)
	wantRefused(t, r, http.StatusForbidden, "cross_site_request")
	if r.Header.Get("Set-Cookie") != "" {
		t.Error("a refused sign-in set a cookie")
	}
	// Browsers that send no Origin still send Sec-Fetch-Site; sandboxed pages send Origin: null.
	wantRefused(t, e.do("POST", "/api/auth/sign-up", "", map[string]any{"email": "new@example.com", "password": "correct horse battery", "terms_accepted": true},
		"Sec-Fetch-Site", "cross-site"), http.StatusForbidden, "cross_site_request")
	wantRefused(t, e.do("POST", "/api/auth/reset-password", "", map[string]any{"code": "x", "password": "another horse battery"}, "Origin", "null"),
		http.StatusForbidden, "cross_site_request")
	wantRefused(t, e.do("POST", "/api/auth/send-password-reset-email", "", reset, "Sec-Fetch-Site", "same-site"), http.StatusForbidden, "cross_site_request")
	if mail, err := e.app.DB.ListMail(context.Background(), 10); err != nil || len(mail) != 0 {
		t.Fatalf("refused requests sent mail: %v %v", mail, err)
	}
	if _, err := e.app.DB.UserByEmail(context.Background(), "new@example.com"); err == nil {
		t.Fatal("a refused sign-up made an account")
	}

	// Same origin (the request's Host), the configured public URL, and clients that are not
	// browsers (no Origin, no Sec-Fetch-Site) get through.
	expect(t, e.do("POST", "/api/auth/send-password-reset-email", "", reset, "Origin", e.srv.URL, "Sec-Fetch-Site", "same-origin"), 200)
	expect(t, e.do("POST", "/api/auth/send-password-reset-email", "", reset), 200)
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/auth/send-password-reset-email", strings.NewReader(`{"email":"owner@example.com"}`))
	req.Host = "timbre.internal:8080" // behind a proxy that rewrites Host
	req.Header.Set("Origin", e.app.Cfg.PublicURL)
	req.Header.Set("Content-Type", "application/json")
	res, err := e.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("public URL origin: %d", res.StatusCode)
	}
	// The right origin with a body browsers may send cross-site is still not JSON.
	wantRefused(t, e.do("POST", "/api/auth/send-password-reset-email", "", `{"email":"owner@example.com"}`, "Content-Type", "text/plain", "Origin", e.srv.URL),
		http.StatusUnsupportedMediaType, "unsupported_media_type")
	// The SAML IdP's form post is the one unauthenticated POST other sites send: it is not refused
	// for its origin (it fails later, for its missing SAMLResponse).
	r = e.do("POST", "/api/sso/saml/acs", "", "SAMLResponse=", "Content-Type", "application/x-www-form-urlencoded", "Origin", "https://idp.example")
	if r.StatusCode == http.StatusForbidden && detailStatus(t, r) == "cross_site_request" {
		t.Error("the SAML ACS refuses the IdP's cross-site post")
	}

	// No CORS on /api routes, the mailbox or preflights for them; /v1 keeps it.
	for _, p := range []string{"/api/dev/mailbox", "/api/auth/session", "/healthz"} {
		r := e.do("GET", p, "", nil, "Origin", evil)
		if r.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s answers CORS", p)
		}
	}
	pre := e.do("OPTIONS", "/api/auth/send-password-reset-email", "", nil, "Origin", evil, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type")
	if pre.Header.Get("Access-Control-Allow-Origin") != "" || pre.Header.Get("Access-Control-Allow-Headers") != "" || pre.StatusCode == http.StatusNoContent {
		t.Errorf("preflight for /api answered: %d %v", pre.StatusCode, pre.Header)
	}
	if e.do("GET", "/v1/models", e.key, nil, "Origin", evil).Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Error("/v1 lost its CORS")
	}
	// Every response says nosniff and limits the Referer.
	h := e.do("GET", "/healthz", "", nil).Header
	if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "strict-origin-when-cross-origin" {
		t.Errorf("security headers %v", h)
	}
}

// Bodies that are not plain JSON are refused before anything is charged.
func TestRequestBodiesChecked(t *testing.T) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			tts := "/v1/text-to-speech/" + sarah
			wantRefused(t, e.do("POST", tts, e.key, `{"text":"Plain text body."}`, "Content-Type", "text/plain"), http.StatusUnsupportedMediaType, "unsupported_media_type")
			wantRefused(t, e.do("POST", tts, e.key, `{"text":"No type."}`, "Content-Type", ""), http.StatusUnsupportedMediaType, "unsupported_media_type")
			wantRefused(t, e.do("POST", tts, e.key, "\x1f\x8b\x08\x00", "Content-Encoding", "gzip"), http.StatusUnsupportedMediaType, "unsupported_content_encoding")
			// Invalid UTF-8 is named, not replaced by U+FFFD and spoken.
			for _, c := range []struct {
				path, body string
				loc        []string
			}{
				{tts, "{\"text\":\"caf\xe9 au lait\"}", []string{"body", "text"}},
				{"/v1/audio/speech", "{\"voice\":\"alloy\",\"input\":\"bad \xff\xfe byte\"}", []string{"body", "input"}},
				{tts, "{\"text\":\"fine\",\"voice_settings\":{\"stability\":0.5},\"pronunciation_dictionary_locators\":[{\"pronunciation_dictionary_id\":\"ok\"},{\"version_id\":\"\xc3\"}]}",
					[]string{"body", "pronunciation_dictionary_locators", "1", "version_id"}},
			} {
				loc := fieldError(t, e.do("POST", c.path, e.key, c.body))
				if got := strings.Trim(fmt.Sprint(loc), "[]"); got != strings.Join(c.loc, " ") {
					t.Errorf("%q: loc %v, want %v", c.body, loc, c.loc)
				}
			}
			// charset and the +json suffix are JSON too.
			expect(t, e.do("POST", tts, e.key, `{"text":"Charset."}`, "Content-Type", "application/json; charset=utf-8"), 200)
			if n := e.historyCount(e.key); n != 1 {
				t.Errorf("%d generations, want only the valid one", n)
			}
			if s := e.do("GET", "/v1/user/subscription", e.key, nil).json(t); s["character_count"].(float64) != 8 {
				t.Errorf("charged %v characters, want 8 (the valid request only)", s["character_count"])
			}
		})
	}
}

// rawRequest opens a connection and writes a request head announcing contentLength bytes.
func rawRequest(t *testing.T, e *env, path string, contentLength int) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", e.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nxi-api-key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		path, e.srv.Listener.Addr(), e.key, contentLength)
	return conn
}

func readResponse(t *testing.T, conn net.Conn) (*http.Response, []byte) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// A body that ends before its Content-Length is the client's mistake: 400, not 500.
func TestBodyCutShort(t *testing.T) {
	e := newEnv(t, store.SQLite)
	conn := rawRequest(t, e, "/v1/text-to-speech/"+sarah, 200)
	_, _ = io.WriteString(conn, `{"text":"Only part of`)
	_ = conn.(*net.TCPConn).CloseWrite()
	res, body := readResponse(t, conn)
	if res.StatusCode != http.StatusBadRequest || !bytes.Contains(body, []byte(`"body_incomplete"`)) {
		t.Fatalf("cut body: %d %s", res.StatusCode, body)
	}
	if n := e.historyCount(e.key); n != 0 {
		t.Errorf("%d generations from a cut body", n)
	}
}

// A body that trickles in slower than the body timeout ends with 408 once the timeout passes;
// the deadline does not reach past the body, so a long answer is not cut by it.
func TestBodyTimeout(t *testing.T) {
	t.Setenv("TIMBRE_BODY_TIMEOUT", "1s")
	e := newEnv(t, store.SQLite)
	conn := rawRequest(t, e, "/v1/text-to-speech/"+sarah, 100)
	start := time.Now()
	stop := make(chan struct{})
	go func() { // one byte every 100 ms: 10 s for the whole body
		for i := 0; i < 100; i++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	res, body := readResponse(t, conn)
	close(stop)
	took := time.Since(start)
	if res.StatusCode != http.StatusRequestTimeout || !bytes.Contains(body, []byte(`"body_timeout"`)) {
		t.Fatalf("trickled body: %d %s", res.StatusCode, body)
	}
	if took < 900*time.Millisecond || took > 5*time.Second {
		t.Errorf("answered after %v, want about the 1 s timeout", took)
	}
	t.Logf("trickled body ended after %v", took)

	// A quick body with an answer that takes longer than the timeout to stream: it arrives whole.
	// About a minute of 48 kHz audio (6 MB): more than the sockets hold, so the answer is still
	// being written when the timeout passes.
	text := strings.Repeat("The body deadline must not cut a long answer. ", 28)
	req := fmt.Sprintf(`{"text":%q}`, text)
	conn = rawRequest(t, e, "/v1/text-to-speech/"+sarah+"/stream?output_format=pcm_48000", len(req))
	_, _ = io.WriteString(conn, req)
	time.Sleep(1500 * time.Millisecond) // past the timeout before reading anything
	res, body = readResponse(t, conn)
	if res.StatusCode != 200 {
		t.Fatalf("stream: %d %s", res.StatusCode, body)
	}
	if secs := float64(len(body)) / 96000; secs < 40 {
		t.Errorf("stream has %.1f s of audio: cut short", secs)
	}
}
