package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"timbre/internal/apitest"
	"timbre/internal/app"
	"timbre/internal/config"
	"timbre/internal/engine"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

func TestMain(m *testing.M) {
	engine.MaybeRunWorker()
	os.Exit(m.Run())
}

// env is a running Timbre for a test, with a verified user and an API key.
type env struct {
	t      *testing.T
	app    *app.App
	srv    *httptest.Server
	key    string
	user   *store.User
	dbURL  string
	client *http.Client
}

// newEnv starts Timbre on SQLite (dialect "sqlite") or a fresh PostgreSQL database ("postgres").
func newEnv(t *testing.T, dialect store.Dialect) *env {
	t.Helper()
	return newEnvWith(t, dialect, nil)
}

// newEnvWith is newEnv with configure applied to the configuration first (nil: none).
func newEnvWith(t *testing.T, dialect store.Dialect, configure func(*config.Config)) *env {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	cfg := config.Bind(fs, config.Serve)
	cfg.DataDir = t.TempDir()
	if configure != nil {
		configure(cfg)
	}
	if dialect == store.Postgres {
		_, url := testdb.PostgresWithURL(t)
		cfg.DatabaseURL = url
	}
	srv := httptest.NewUnstartedServer(nil)
	cfg.PublicURL = "http://" + srv.Listener.Addr().String()
	if err := cfg.Finish(); err != nil {
		t.Fatal(err)
	}
	a, err := app.New(context.Background(), cfg, app.Options{InProcessEngines: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = a.Handler()
	srv.Start()
	t.Cleanup(func() { srv.Close(); a.Close() })
	// Every response the tests receive is checked against openapi.json.
	e := &env{t: t, app: a, srv: srv, dbURL: cfg.DatabaseURL, client: apitest.Client(t, srv.Client())}
	e.user, e.key = e.newUser("owner@example.com")
	return e
}

// newUser creates a verified user with its own workspace and an API key.
func (e *env) newUser(email string) (*store.User, string) {
	e.t.Helper()
	ctx := context.Background()
	u, err := e.app.Auth.CreateVerifiedUser(ctx, email, "correct horse battery")
	if err != nil {
		e.t.Fatal(err)
	}
	_, secret, err := e.app.Auth.CreateAPIKey(ctx, u.ID, u.WorkspaceID, "test key")
	if err != nil {
		e.t.Fatal(err)
	}
	return u, secret
}

type resp struct {
	*http.Response
	body []byte
}

func (r *resp) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v: %.300s", err, r.body)
	}
	return m
}

// do sends a request with the env's key (key "" sends none).
func (e *env) do(method, path, key string, body any, hdr ...string) *resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, _ := json.Marshal(b)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("xi-api-key", key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return &resp{res, data}
}

// expect fails unless the response has the status code.
func expect(t *testing.T, r *resp, code int) {
	t.Helper()
	if r.StatusCode != code {
		t.Fatalf("%s %s: status %d, want %d: %.500s", r.Request.Method, r.Request.URL.Path, r.StatusCode, code, r.body)
	}
}

// detailStatus returns detail.status of an application error.
func detailStatus(t *testing.T, r *resp) string {
	t.Helper()
	d, ok := r.json(t)["detail"].(map[string]any)
	if !ok {
		t.Fatalf("no detail object in %s", r.body)
	}
	s, _ := d["status"].(string)
	return s
}

// fieldError returns the loc of the first 422 entry.
func fieldError(t *testing.T, r *resp) []any {
	t.Helper()
	expect(t, r, http.StatusUnprocessableEntity)
	d, ok := r.json(t)["detail"].([]any)
	if !ok || len(d) == 0 {
		t.Fatalf("422 without detail list: %s", r.body)
	}
	entry := d[0].(map[string]any)
	if entry["msg"] == "" || entry["type"] == "" {
		t.Fatalf("422 entry lacks msg/type: %v", entry)
	}
	return entry["loc"].([]any)
}

func (e *env) workspace() *store.Workspace {
	e.t.Helper()
	ws, err := e.app.DB.Workspace(context.Background(), e.user.WorkspaceID, time.Now())
	if err != nil {
		e.t.Fatal(err)
	}
	return ws
}

func (e *env) historyCount(key string) int {
	e.t.Helper()
	r := e.do("GET", "/v1/history?page_size=1000", key, nil)
	expect(e.t, r, 200)
	return len(r.json(e.t)["history"].([]any))
}

const (
	rachel = "21m00Tcm4TlvDq8ikWAM" // flite slt
	sarah  = "EXAVITQu4vr4xnSDxMaL" // espeak en-us+f2
	josh   = "TxGEqnHWrfWFTfGW9XjX" // flite kal16 (a diphone voice: the same audio every time)
)
