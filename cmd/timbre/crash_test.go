package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"timbre/internal/metering"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

// A serve process killed (SIGKILL) in the middle of a stream leaves an open charge and a history
// row in processing; the next start settles both: the characters recorded as delivered are
// charged, the rest refunded, and the history row keeps the delivered text. Real processes of a
// binary built by the test, on SQLite and PostgreSQL.
func TestServeSettlesAStreamCutByACrash(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "timbre")
	if out, err := exec.Command("go", "build", "-o", bin, "timbre/cmd/timbre").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		t.Run(string(d), func(t *testing.T) {
			dir := t.TempDir()
			env := append(os.Environ(), "TIMBRE_DATA_DIR="+dir, "TIMBRE_DATABASE_URL=")
			dbURL := ""
			if d == store.Postgres {
				_, dbURL = testdb.PostgresWithURL(t)
				env = append(env, "TIMBRE_DATABASE_URL="+dbURL)
			}
			run := func(args ...string) string {
				t.Helper()
				cmd := exec.Command(bin, args...)
				cmd.Env = env
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("timbre %v: %v\n%s", args, err, out)
				}
				return string(out)
			}
			out := run("admin", "create-user", "--email", "ops@example.com", "--password", "long enough pw")
			m := regexp.MustCompile(`with workspace (\S+)`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no workspace in %q", out)
			}
			workspaceID := m[1]
			out = strings.TrimSpace(run("admin", "create-api-key", "--email", "ops@example.com", "--name", "k"))
			key := out[strings.LastIndex(out, "\n")+1:]

			// The first server settles nothing on its own: its stream is held by the client, silent
			// for longer than a 1 s settle-after, and its periodic settling would end it mid-test.
			srv := startServe(t, bin, env, "10m")
			text := strings.Repeat("The quick brown fox jumps over the lazy dog near the quiet river bank. ", 40)[:2349]
			req, _ := http.NewRequest("POST", srv.base+"/v1/text-to-speech/EXAVITQu4vr4xnSDxMaL/stream?output_format=pcm_22050", strings.NewReader(fmt.Sprintf(`{"text":%q}`, text)))
			req.Header.Set("xi-api-key", key)
			req.Header.Set("Content-Type", "application/json")
			res, err := smallWindowClient().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			historyID := res.Header.Get("history-item-id")
			if res.StatusCode != 200 || historyID == "" {
				t.Fatalf("status %d, history-item-id %q", res.StatusCode, historyID)
			}
			// Take ~6 s of the ~2.5 min of audio, then stop reading: the server is held mid-stream
			// long enough to record what it delivered, and is killed there.
			read, err := io.CopyN(io.Discard, res.Body, 256<<10)
			if err != nil {
				t.Fatalf("read %d: %v", read, err)
			}
			time.Sleep(2500 * time.Millisecond)
			srv.kill(t)

			ctx := context.Background()
			db, err := store.Open(ctx, dbURL, filepath.Join(dir, "timbre.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			usage := func() store.UsageRow {
				t.Helper()
				rows, err := metering.Usage(ctx, db, workspaceID, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), metering.TTS, store.UsageByProduct)
				if err != nil || len(rows) != 1 {
					t.Fatalf("usage %v %v", rows, err)
				}
				return rows[0]
			}
			h, err := db.History(ctx, workspaceID, historyID)
			if err != nil || h.State != store.StateProcessing {
				t.Fatalf("after the kill the history row is %+v (%v), want processing", h, err)
			}
			ws, _ := db.Workspace(ctx, workspaceID, time.Now())
			before := usage()
			t.Logf("killed after the client read %d bytes: %d credits held, %d characters recorded as delivered", read, ws.CharacterCount, before.Units)
			if ws.CharacterCount != 2349 || before.Units == 0 || before.Units >= 2349 {
				t.Fatalf("before the restart: count %d, delivered %d; want 2349 held and part delivered", ws.CharacterCount, before.Units)
			}
			if d == store.SQLite {
				db.Close() // the new process owns the file
			}

			time.Sleep(2 * time.Second) // the killed stream's last sign of life is older than --settle-after
			srv = startServe(t, bin, env, "1s")
			defer srv.kill(t)
			if d == store.SQLite {
				if db, err = store.Open(ctx, "", filepath.Join(dir, "timbre.db")); err != nil {
					t.Fatal(err)
				}
				defer db.Close()
			}
			h, err = db.History(ctx, workspaceID, historyID)
			if err != nil || h.State != store.StateCreated {
				t.Fatalf("after the restart the history row is %+v (%v), want created", h, err)
			}
			after := usage()
			ws, _ = db.Workspace(ctx, workspaceID, time.Now())
			chars := int64(utf8.RuneCountInString(h.Text))
			t.Logf("settled: %d characters charged, count %d, history text %d characters", after.Credits, ws.CharacterCount, chars)
			if after.Units != before.Units || after.Credits != before.Units || ws.CharacterCount != after.Credits {
				t.Fatalf("settled %+v, count %d; want %d charged", after, ws.CharacterCount, before.Units)
			}
			if chars != before.Units || !strings.HasPrefix(text, h.Text) || h.CharTo-h.CharFrom != after.Credits {
				t.Fatalf("history keeps %d characters (%d..%d), want the %d delivered", chars, h.CharFrom, h.CharTo, before.Units)
			}
		})
	}
}

type serveProc struct {
	cmd  *exec.Cmd
	base string
	logs *bytes.Buffer
}

// startServe starts `timbre serve` with open charges settled after a second of silence and
// waits until it is ready.
func startServe(t *testing.T, bin string, env []string, settleAfter string) *serveProc {
	t.Helper()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	p := &serveProc{cmd: exec.Command(bin, "serve", "--addr", addr, "--espeak-workers", "1", "--settle-after", settleAfter), base: "http://" + addr, logs: &bytes.Buffer{}}
	p.cmd.Env = env
	p.cmd.Stderr = p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(p.base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return p
			}
		}
		if time.Now().After(deadline) {
			p.kill(t)
			t.Fatalf("serve did not become ready: %s", p.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// kill ends the process with SIGKILL (no clean-up of any kind) and waits for it.
func (p *serveProc) kill(t *testing.T) {
	t.Helper()
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// smallWindowClient is an HTTP client whose connections have a 64 KiB receive buffer. On an idle
// machine the server can synthesize the whole test stream (~6.6 MB of pcm) into loopback socket
// buffers that autotune to several MB on each side and finish before the kill; with a small
// receive window it is held mid-stream, as a slow client holds it.
func smallWindowClient() *http.Client {
	dialer := &net.Dialer{Control: func(network, address string, c syscall.RawConn) error {
		var soErr error
		if err := c.Control(func(fd uintptr) {
			soErr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 64<<10)
		}); err != nil {
			return err
		}
		return soErr
	}}
	return &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
}
