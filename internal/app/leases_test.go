package app_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"timbre/internal/store"
)

// A running stream holds one of the plan's slots (free: 2) as a lease row, reports the count in
// current-concurrent-requests, and gives the lease back when the client goes away.
func TestConcurrencyLeasesFollowStreams(t *testing.T) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			ctx := context.Background()
			open := func() *http.Response {
				// ~2,400 characters: about 5 MB of pcm_16000, more than the largest socket send buffer
				// (4 MB), so the stream cannot end while nobody reads it.
				text := strings.Repeat("A stream that holds its slot while nobody reads it. ", 46)
				req, _ := http.NewRequest("POST", e.srv.URL+"/v1/text-to-speech/"+sarah+"/stream?output_format=pcm_16000", strings.NewReader(fmt.Sprintf(`{"text":%q}`, text)))
				req.Header.Set("xi-api-key", e.key)
				req.Header.Set("Content-Type", "application/json")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				if res.StatusCode == 200 {
					if _, err := bufio.NewReader(res.Body).Peek(1); err != nil {
						t.Fatal(err)
					}
				}
				return res
			}
			first, second := open(), open()
			if first.StatusCode != 200 || second.StatusCode != 200 {
				t.Fatalf("statuses %d %d", first.StatusCode, second.StatusCode)
			}
			if got := first.Header.Get("current-concurrent-requests") + "," + second.Header.Get("current-concurrent-requests"); got != "1,2" {
				t.Errorf("current-concurrent-requests %s, want 1,2", got)
			}
			if m := second.Header.Get("maximum-concurrent-requests"); m != "2" {
				t.Errorf("maximum-concurrent-requests %s", m)
			}
			third := e.do("POST", "/v1/text-to-speech/"+sarah+"/stream?output_format=pcm_16000", e.key, map[string]any{"text": "One too many."})
			expect(t, third, 429)
			if s := detailStatus(t, third); s != "too_many_concurrent_requests" {
				t.Errorf("429 detail status %q", s)
			}
			if n, _ := e.app.DB.LiveLeases(ctx, e.user.WorkspaceID); n != 2 {
				t.Fatalf("%d leases while two streams run", n)
			}
			first.Body.Close()
			second.Body.Close()
			deadline := time.Now().Add(5 * time.Second)
			for {
				n, err := e.app.DB.LiveLeases(ctx, e.user.WorkspaceID)
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d leases left after the clients went away", n)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
