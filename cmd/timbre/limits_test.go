package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// server is one `timbre serve` process started by a test.
type server struct {
	cmd  *exec.Cmd
	base string
	logs *bytes.Buffer
}

// startServer runs `timbre serve` (the test binary doubles as timbre) with args and waits until
// it is ready; it is killed at cleanup.
func startServer(t *testing.T, args ...string) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--addr", addr, "--espeak-workers", "1"}, args...)...)
	cmd.Env = append(os.Environ(), "TIMBRE_TEST_MAIN=1")
	s := &server{cmd: cmd, base: "http://" + addr, logs: &bytes.Buffer{}}
	cmd.Stderr = s.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(s.base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return s
			}
		}
		select {
		case <-exited:
			t.Fatalf("timbre serve exited: %s", s.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not become ready: %s", s.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// slowReader is a client whose connections take in little at a time (a 4 KiB receive buffer), so
// a stream it stops reading blocks the server within a few kilobytes instead of filling
// megabytes of socket buffers and finishing.
var slowReader = &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{
	Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		if cerr := c.Control(func(fd uintptr) {
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		}); cerr != nil {
			return cerr
		}
		return err
	},
}).DialContext}}

// holdStream starts a speech stream and, once its first audio arrived, stops reading: the server
// then blocks on the full connection and the request keeps its concurrency slot until close.
// It returns the status, the error code of a refusal, and the response to close. Failures to
// talk to the server are reported on t (safe from any goroutine) as status 0.
func holdStream(t *testing.T, base, key string) (int, string, *http.Response) {
	// ~2,400 characters: about 5 MB of pcm_16000, more than the kernel's largest send buffer
	// (4 MB), so a server can never finish a stream nobody reads.
	text := strings.Repeat("A request that keeps its slot while the client waits. ", 44)
	req, _ := http.NewRequest("POST", base+"/v1/text-to-speech/EXAVITQu4vr4xnSDxMaL/stream?output_format=pcm_16000",
		strings.NewReader(fmt.Sprintf(`{"text":%q}`, text)))
	req.Header.Set("xi-api-key", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := slowReader.Do(req)
	if err != nil {
		t.Error(err)
		return 0, "", nil
	}
	if res.StatusCode != 200 {
		defer res.Body.Close()
		var e struct {
			Detail struct{ Status string } `json:"detail"`
		}
		_ = json.NewDecoder(res.Body).Decode(&e)
		return res.StatusCode, e.Detail.Status, nil
	}
	if _, err := bufio.NewReader(res.Body).Peek(1); err != nil {
		t.Error(err)
		res.Body.Close()
		return 0, "", nil
	}
	return 200, "", res
}

// waitLeases waits until the workspace holds want live leases.
func waitLeases(t *testing.T, db *store.DB, workspaceID string, want int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		n, err := db.LiveLeases(context.Background(), workspaceID)
		if err != nil {
			t.Fatal(err)
		}
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d live leases after %s, want %d", n, within, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestConcurrencyLimitAcrossProcesses: two `timbre serve` processes sharing one database hold a
// workspace to its plan's concurrency limit together (starter plan: 3) and share the sign-in
// throttle, and the leases of a process killed with SIGKILL lapse after the lease TTL.
func TestConcurrencyLimitAcrossProcesses(t *testing.T) {
	for _, dialect := range []store.Dialect{store.Postgres, store.SQLite} {
		t.Run(string(dialect), func(t *testing.T) {
			// storage: the flags both servers share; db: the test's own view of the database.
			var storage []string
			var db *store.DB
			if dialect == store.Postgres {
				var url string
				db, url = testdb.PostgresWithURL(t)
				storage = []string{"--database-url", url, "--data", t.TempDir()}
			} else {
				dir := t.TempDir()
				storage = []string{"--data", dir}
				if _, err := timbre(t, append([]string{"migrate"}, storage...)...); err != nil {
					t.Fatal(err)
				}
				var err error
				if db, err = store.Open(context.Background(), "", filepath.Join(dir, "timbre.db")); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
			}
			if out, err := timbre(t, append([]string{"admin", "create-user", "--email", "ops@example.com", "--password", "long enough pw"}, storage...)...); err != nil {
				t.Fatal(err, out)
			}
			// Starter: 3 at a time, and characters enough for the long streams below.
			if out, err := timbre(t, append([]string{"admin", "set-plan", "--email", "ops@example.com", "--plan", "starter"}, storage...)...); err != nil {
				t.Fatal(err, out)
			}
			const limit = 3
			out, err := timbre(t, append([]string{"admin", "create-api-key", "--email", "ops@example.com", "--name", "k"}, storage...)...)
			if err != nil {
				t.Fatal(err, out)
			}
			key := out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:]
			key = strings.TrimSpace(key)
			u, err := db.UserByEmail(context.Background(), "ops@example.com")
			if err != nil {
				t.Fatal(err)
			}
			ws := u.WorkspaceID

			const ttl = 3 * time.Second
			a := startServer(t, append(storage, "--concurrency-lease-ttl", ttl.String())...)
			var b *server
			if dialect == store.Postgres {
				b = startServer(t, append(storage[:2:2], "--data", t.TempDir(), "--concurrency-lease-ttl", ttl.String())...)
			} else {
				b = startServer(t, append(storage, "--concurrency-lease-ttl", ttl.String())...)
			}

			// A burst on both servers at once: exactly the plan's 3 run, the rest are refused.
			const burst = 9
			var mu sync.Mutex
			var held []*http.Response
			codes := map[string]int{}
			var wg sync.WaitGroup
			for i := range burst {
				wg.Add(1)
				go func() {
					defer wg.Done()
					base := a.base
					if i%2 == 1 {
						base = b.base
					}
					code, status, res := holdStream(t, base, key)
					mu.Lock()
					defer mu.Unlock()
					codes[fmt.Sprint(code, status)]++
					if res != nil {
						held = append(held, res)
					}
				}()
			}
			wg.Wait()
			if codes["200"] != limit || codes["429too_many_concurrent_requests"] != burst-limit {
				t.Fatalf("burst of %d on two servers: %v, want %d running and the rest 429 too_many_concurrent_requests", burst, codes, limit)
			}
			waitLeases(t, db, ws, limit, time.Second)
			for _, res := range held {
				res.Body.Close()
			}
			// Closed streams give their leases back (no waiting for the TTL).
			waitLeases(t, db, ws, 0, ttl/2)

			// Sign-in throttles count in the database too: 10 failures spread over both servers
			// lock the account on both.
			signIn := func(base, password string) int {
				res, err := http.Post(base+"/api/auth/sign-in", "application/json",
					strings.NewReader(fmt.Sprintf(`{"email":"ops@example.com","password":%q}`, password)))
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				return res.StatusCode
			}
			for i := range 10 {
				if code := signIn([]*server{a, b}[i%2].base, "wrong password"); code != 401 {
					t.Fatalf("failed sign-in %d: %d, want 401", i+1, code)
				}
			}
			for _, s := range []*server{a, b} {
				if code := signIn(s.base, "long enough pw"); code != 429 {
					t.Fatalf("sign-in after 10 failures over two servers: %d, want 429", code)
				}
			}

			// Server A takes every slot; B refuses; A is killed; B runs again once A's leases lapse.
			for range limit {
				if code, status, _ := holdStream(t, a.base, key); code != 200 {
					t.Fatalf("on A: %d %s", code, status)
				}
			}
			waitLeases(t, db, ws, limit, time.Second)
			if code, status, _ := holdStream(t, b.base, key); code != 429 || status != "too_many_concurrent_requests" {
				t.Fatalf("B while A holds every slot: %d %s\nA: %s", code, status, a.logs.String())
			}
			killed := time.Now()
			if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if code, _, _ := holdStream(t, b.base, key); code != 429 {
				t.Fatalf("B right after A was killed: %d, want 429 (A's leases are still live)", code)
			}
			waitLeases(t, db, ws, 0, ttl+2*time.Second)
			lapsed := time.Since(killed)
			code, status, res := holdStream(t, b.base, key)
			if code != 200 {
				t.Fatalf("B after A's leases lapsed: %d %s", code, status)
			}
			res.Body.Close()
			for _, s := range []*server{a, b} {
				if logs := s.logs.String(); strings.Contains(logs, "database is locked") || strings.Contains(logs, "SQLITE_BUSY") {
					t.Errorf("server log shows lock contention errors:\n%s", logs)
				}
			}
			t.Logf("burst %v; killed server's leases lapsed %.1fs after SIGKILL (TTL %s)", codes, lapsed.Seconds(), ttl)
		})
	}
}
