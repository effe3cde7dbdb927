// Package e2e holds Timbre's end-to-end tests: a real Timbre (the same app that `timbre serve`
// builds, with the embedded web app and espeak-ng worker processes) runs in-process on a free
// loopback port, and Node scripts drive it from outside: the official ElevenLabs JS SDK
// (sdk.mjs) and a headless Chromium through playwright-core (browser.mjs).
//
// The Node dependencies live in e2e/node_modules (`npm ci` in this directory). Without them the
// tests skip, except when CI=true, where they fail.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"timbre/internal/app"
	"timbre/internal/config"
	"timbre/internal/engine"
	"timbre/web"
)

func TestMain(m *testing.M) {
	// The espeak-ng engine pool re-executes this test binary as its worker processes: such a
	// process must become the worker here, before any test runs.
	engine.MaybeRunWorker()
	os.Exit(m.Run())
}

// Timbre is a running server for one test.
type Timbre struct {
	URL     string // http://127.0.0.1:PORT, also the configured public URL
	App     *app.App
	Email   string // an operator-made, verified user
	APIKey  string // an API key of that user
	logs    *testLog
	t       testing.TB
	srv     *http.Server
	stopped bool
}

const (
	operatorEmail    = "operator@e2e.timbre.test"
	operatorPassword = "Quiet-Lantern-Orbit-42"
)

// StartTimbre starts Timbre on a free loopback port with a fresh data directory and no SMTP
// server (so mail goes to the development mailbox), creates a verified user and an API key the
// way an operator's `timbre admin` commands do, and stops everything when the test ends. Each
// adjust function may change the app's options before it is built.
func StartTimbre(t testing.TB, adjust ...func(*app.Options)) *Timbre {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	base := "http://" + ln.Addr().String()

	// Flags as an operator would pass them; they win over any TIMBRE_* variables in the
	// environment, and the storage ones are pinned so the test never touches a real database.
	fset := flag.NewFlagSet("timbre serve", flag.ContinueOnError)
	cfg := config.Bind(fset, config.Serve)
	args := []string{
		"--addr", ln.Addr().String(),
		"--data", t.TempDir(),
		"--public-url", base,
		"--database-url", "",
		"--blob-url", "",
		"--smtp-host", "",
		"--tts-openai-url", "",
		"--espeak-workers", "2",
		"--log-level", "info",
		"--shutdown-timeout", "5s",
	}
	if err := fset.Parse(args); err != nil {
		ln.Close()
		t.Fatalf("flags: %v", err)
	}
	if err := cfg.Finish(); err != nil {
		ln.Close()
		t.Fatalf("config: %v", err)
	}

	dist, err := fs.Sub(web.Dist, "dist")
	if err != nil {
		ln.Close()
		t.Fatalf("web app: %v", err)
	}
	if _, err := fs.Stat(dist, "index.html"); err != nil {
		ln.Close()
		t.Fatalf("the embedded web app has no index.html: build it first (cd web && npm ci && npm run build), then rerun: %v", err)
	}

	logs := &testLog{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx := context.Background()
	opts := app.Options{WebApp: dist, InProcessEngines: false, Logger: log}
	for _, fn := range adjust {
		fn(&opts)
	}
	a, err := app.New(ctx, cfg, opts)
	if err != nil {
		ln.Close()
		t.Fatalf("app.New: %v\n%s", err, logs.String())
	}
	if err := a.StartJobs(ctx); err != nil {
		a.Close()
		ln.Close()
		t.Fatalf("start jobs: %v", err)
	}

	tb := &Timbre{URL: base, App: a, logs: logs, t: t}
	tb.srv = &http.Server{Handler: a.Handler(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	served := make(chan error, 1)
	go func() { served <- tb.srv.Serve(ln) }()
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		_ = tb.srv.Shutdown(sctx)
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
		a.StopJobs()
		a.Close()
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})

	// The operator's part: a verified user and an API key (what `timbre admin create-user` and
	// `timbre admin create-api-key` do).
	u, err := a.Auth.CreateVerifiedUser(ctx, operatorEmail, operatorPassword)
	if err != nil {
		t.Fatalf("create user: %v", err)
	}
	_, secret, err := a.Auth.CreateAPIKey(ctx, u.ID, u.WorkspaceID, "e2e")
	if err != nil {
		t.Fatalf("create API key: %v", err)
	}
	tb.Email, tb.APIKey = u.Email, secret

	waitHealthy(t, base)
	return tb
}

// waitHealthy waits until the server answers HTTP at all.
func waitHealthy(t testing.TB, base string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("server at %s never answered: %v", base, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// testLog collects the server's log, shown when a test fails.
type testLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *testLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// requireNode returns the node executable, or skips the test when node or e2e/node_modules is
// missing; with CI=true a missing dependency fails instead.
func requireNode(t *testing.T, packages ...string) string {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI=true: not skipping)", msg)
		}
		t.Skipf("skipping: %s", msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed (Node 20.19+ is needed)")
	}
	if _, err := os.Stat("node_modules"); err != nil {
		missing("e2e/node_modules is missing: run `cd e2e && npm ci` first")
	}
	for _, p := range packages {
		if _, err := os.Stat(filepath.Join("node_modules", filepath.FromSlash(p), "package.json")); err != nil {
			missing("e2e/node_modules has no %s: run `cd e2e && npm ci` first", p)
		}
	}
	return node
}

// runNode runs a script of this directory with env added, streaming its output into the test
// log line by line; it fails the test with the whole output when the script fails.
func runNode(t *testing.T, node string, timeout time.Duration, script string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 5 * time.Second
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var out strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			out.WriteString(line + "\n")
			if testing.Verbose() {
				t.Log(line)
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	start := time.Now()
	err := cmd.Run()
	pw.Close()
	<-done
	output := "output above"
	if !testing.Verbose() {
		output = "output:\n" + out.String()
	}
	if ctx.Err() != nil {
		t.Fatalf("node %s timed out after %s; %s", script, timeout, output)
	}
	if err != nil {
		t.Fatalf("node %s failed (%v) after %s; %s", script, err, time.Since(start).Round(time.Millisecond), output)
	}
}
