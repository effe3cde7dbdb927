package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"timbre/internal/engine"
)

// The test binary doubles as the timbre binary: with TIMBRE_TEST_MAIN=1 it runs main().
func TestMain(m *testing.M) {
	if os.Getenv("TIMBRE_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	engine.MaybeRunWorker()
	os.Exit(m.Run())
}

func timbre(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(args, &out, &errb)
	if err != nil {
		return out.String() + errb.String(), err
	}
	return out.String(), nil
}

func TestHelpDocumentsCommandsAndEnvironment(t *testing.T) {
	out, _ := timbre(t, "--help")
	for _, want := range []string{"serve", "worker", "migrate", "admin create-user", "admin create-api-key", "admin set-plan", "admin list-users", "backup", "restore"} {
		if !strings.Contains(out, want) {
			t.Errorf("usage lacks %q", want)
		}
	}
	var errb bytes.Buffer
	_ = run([]string{"serve", "--help"}, io.Discard, &errb)
	for _, want := range []string{"-addr", "TIMBRE_ADDR", "-data", "TIMBRE_DATA_DIR", "TIMBRE_DATABASE_URL", "TIMBRE_BLOB_URL", "TIMBRE_SMTP_HOST", "TIMBRE_TTS_OPENAI_URL", "TIMBRE_CONCURRENCY_LEASE_TTL"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("serve --help lacks %q", want)
		}
	}
	if _, err := timbre(t, "nonsense"); err == nil {
		t.Error("unknown command accepted")
	}
}

func TestAdminCommands(t *testing.T) {
	dir := t.TempDir()
	if out, err := timbre(t, "migrate", "--data", dir); err != nil {
		t.Fatalf("migrate: %v %s", err, out)
	}
	if out, err := timbre(t, "admin", "create-user", "--email", "Ops@Example.com", "--password", "long enough pw", "--data", dir); err != nil {
		t.Fatalf("create-user: %v %s", err, out)
	}
	if _, err := timbre(t, "admin", "create-user", "--email", "ops@example.com", "--password", "long enough pw", "--data", dir); err == nil {
		t.Error("duplicate user accepted")
	}
	if _, err := timbre(t, "admin", "create-user", "--email", "x@example.com", "--password", "short", "--data", dir); err == nil {
		t.Error("short password accepted")
	}
	// The environment sets flags too.
	t.Setenv("TIMBRE_DATA_DIR", dir)
	out, err := timbre(t, "admin", "create-api-key", "--email", "ops@example.com", "--name", "ci")
	if err != nil {
		t.Fatalf("create-api-key: %v %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	key := lines[len(lines)-1]
	if !strings.HasPrefix(key, "sk_") || strings.Contains(key, " ") {
		t.Fatalf("last line %q is not the key alone", key)
	}
	if _, err := timbre(t, "admin", "create-api-key", "--email", "nobody@example.com", "--name", "x"); err == nil {
		t.Error("key for an unknown user")
	}
}

// serve, driven as an operator would: a real process, SIGTERM while a stream is in flight.
func TestServeDrainsStreamsOnSIGTERM(t *testing.T) {
	dir := t.TempDir()
	if _, err := timbre(t, "admin", "create-user", "--email", "ops@example.com", "--password", "long enough pw", "--data", dir); err != nil {
		t.Fatal(err)
	}
	out, err := timbre(t, "admin", "create-api-key", "--email", "ops@example.com", "--name", "k", "--data", dir)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
	freeAddr := func() string {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		defer ln.Close()
		return ln.Addr().String()
	}
	addr, metricsAddr := freeAddr(), freeAddr()
	cmd := exec.Command(os.Args[0], "serve", "--addr", addr, "--data", dir, "--espeak-workers", "1", "--metrics-addr", metricsAddr)
	cmd.Env = append(os.Environ(), "TIMBRE_TEST_MAIN=1")
	var logs bytes.Buffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	base := "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get(base + "/readyz")
		if err == nil && res.StatusCode == 200 {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not become ready: %s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Metrics are served on their own listener only.
	for url, want := range map[string]bool{"http://" + metricsAddr + "/metrics": true, base + "/metrics": false} {
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if got := res.StatusCode == 200 && bytes.Contains(body, []byte("timbre_http_requests_total")); got != want {
			t.Errorf("GET %s: %d, metrics served %v, want %v", url, res.StatusCode, got, want)
		}
	}
	text := strings.Repeat("This long stream keeps going while the server is asked to stop. ", 30)
	req, _ := http.NewRequest("POST", base+"/v1/text-to-speech/EXAVITQu4vr4xnSDxMaL/stream?output_format=pcm_16000", strings.NewReader(fmt.Sprintf(`{"text":%q}`, text)))
	req.Header.Set("xi-api-key", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	br := bufio.NewReader(res.Body)
	if _, err := br.Peek(1); err != nil {
		t.Fatal(err)
	}
	// The stream has started: now ask the server to stop.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(br)
	if err != nil {
		t.Fatalf("stream cut by shutdown: %v", err)
	}
	if secs := float64(len(body)) / 32000; secs < 30 {
		t.Errorf("stream delivered %.1fs of audio: cut short", secs)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve exited with %v: %s", err, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not exit after SIGTERM")
	}
	if !strings.Contains(logs.String(), `"request_id"`) {
		t.Error("log lines carry no request id")
	}
}
