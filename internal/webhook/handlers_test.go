package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"timbre/internal/access"
	"timbre/internal/apitest"
	"timbre/internal/audit"
	"timbre/internal/auth"
	"timbre/internal/httpx"
	"timbre/internal/jobs"
	"timbre/internal/netguard"
	"timbre/internal/store"
	"timbre/internal/testdb"
	"timbre/internal/webhook"
)

var quiet = slog.New(slog.DiscardHandler)

type env struct {
	t       *testing.T
	db      *store.DB
	svc     *webhook.Service
	mux     *http.ServeMux
	adminA  string // API keys
	editorA string
	adminB  string
	userA   string
	wsA     string
	wsB     string
}

// newEnv builds the webhook and audit routes as the server does, with two workspaces: A (an
// admin and an editor) and B (an admin). allowLoopback lets deliveries reach 127.0.0.1 over
// plain http, as the tests' receivers need.
func newEnv(t *testing.T, db *store.DB, allowLoopback bool) *env {
	t.Helper()
	ctx := context.Background()
	cfg := webhook.Config{MaxFailures: 3, Timeout: 5 * time.Second}
	if allowLoopback {
		cfg.AllowCIDRs, cfg.AllowHTTP = "127.0.0.1/32", true
	}
	svc, err := webhook.New(db, testBox(t), cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	svc.Backoff = []time.Duration{20 * time.Millisecond}
	authSvc := &auth.Service{DB: db, PublicURL: "http://localhost:8080"}
	mux := http.NewServeMux()
	rt := &httpx.Router{Mux: mux, Auth: authSvc.Authenticate}
	(&webhook.Handlers{Svc: svc, MaxBody: 1 << 20}).Routes(rt)
	(&audit.Handlers{DB: db}).Routes(rt)

	e := &env{t: t, db: db, svc: svc, mux: mux}
	now := time.Now()
	ua, wa, err := db.CreateUserWithWorkspace(ctx, "admin-a@example.com", "x", true, "free", now)
	if err != nil {
		t.Fatal(err)
	}
	ue, _, err := db.CreateUserWithWorkspace(ctx, "editor-a@example.com", "x", true, "free", now)
	if err != nil {
		t.Fatal(err)
	}
	ub, wb, err := db.CreateUserWithWorkspace(ctx, "admin-b@example.com", "x", true, "free", now)
	if err != nil {
		t.Fatal(err)
	}
	q := `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (?, ?, ?)`
	if db.Dialect == store.Postgres {
		q = `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, $3)`
		_, err = db.PG.Exec(ctx, q, wa.ID, ue.ID, access.RoleEditor)
	} else {
		_, err = db.SQLiteDB.ExecContext(ctx, q, wa.ID, ue.ID, access.RoleEditor)
	}
	if err != nil {
		t.Fatal(err)
	}
	key := func(userID, wsID string) string {
		_, secret, err := authSvc.CreateAPIKey(ctx, userID, wsID, "test")
		if err != nil {
			t.Fatal(err)
		}
		return secret
	}
	e.adminA, e.editorA, e.adminB = key(ua.ID, wa.ID), key(ue.ID, wa.ID), key(ub.ID, wb.ID)
	e.userA, e.wsA, e.wsB = ua.ID, wa.ID, wb.ID
	return e
}

func (e *env) do(key, method, path string, body any) (int, map[string]any) {
	e.t.Helper()
	var rd io.Reader = http.NoBody
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	r := httptest.NewRequest(method, path, rd)
	r.RemoteAddr = "203.0.113.7:5555"
	r.Header.Set("xi-api-key", key)
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	e.mux.ServeHTTP(w, r)
	apitest.Recorded(e.t, r, w)
	var m map[string]any
	_ = json.Unmarshal(w.Body.Bytes(), &m)
	return w.Code, m
}

func wantInvalid(t *testing.T, code int, body map[string]any, field string) {
	t.Helper()
	if code != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422 naming %s: %v", code, field, body)
	}
	list, _ := body["detail"].([]any)
	for _, d := range list {
		loc, _ := d.(map[string]any)["loc"].([]any)
		for _, l := range loc {
			if l == field {
				return
			}
		}
	}
	t.Fatalf("422 %v does not name %s", body, field)
}

func createBody(name, url string, headers map[string]string) map[string]any {
	s := map[string]any{"auth_type": "hmac", "name": name, "webhook_url": url}
	if headers != nil {
		s["request_headers"] = headers
	}
	return map[string]any{"settings": s}
}

// rawWebhookRows reads every text column of the webhooks table.
func rawWebhookRows(t *testing.T, db *store.DB) string {
	t.Helper()
	ctx := context.Background()
	q := `SELECT id, workspace_id, name, url, auth_type, secret_enc, headers_enc, events FROM webhooks`
	var b strings.Builder
	scan := func(rows interface {
		Next() bool
		Scan(...any) error
	}) {
		for rows.Next() {
			var cols [8]string
			if err := rows.Scan(&cols[0], &cols[1], &cols[2], &cols[3], &cols[4], &cols[5], &cols[6], &cols[7]); err != nil {
				t.Fatal(err)
			}
			b.WriteString(strings.Join(cols[:], "|") + "\n")
		}
	}
	if db.Dialect == store.Postgres {
		rows, err := db.PG.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		scan(rows)
	} else {
		rows, err := db.SQLiteDB.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		scan(rows)
	}
	return b.String()
}

var webhookKeys = []string{"name", "webhook_id", "webhook_url", "is_disabled", "is_auto_disabled", "created_at_unix", "auth_type"}

func TestWebhookCRUD(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, false)
		code, created := e.do(e.adminA, "POST", "/v1/workspace/webhooks", createBody("Transcripts", "https://93.184.216.34/hook", map[string]string{"Authorization": "Bearer hdr-token-123"}))
		if code != 200 {
			t.Fatalf("create: %d %v", code, created)
		}
		id, _ := created["webhook_id"].(string)
		secret, _ := created["webhook_secret"].(string)
		if id == "" || !strings.HasPrefix(secret, "wsec_") || len(secret) < 40 {
			t.Fatalf("create answered %v", created)
		}
		// Stored only encrypted: neither the secret nor the custom header value is in the row.
		raw := rawWebhookRows(t, db)
		if !strings.Contains(raw, id) {
			t.Fatalf("row not found: %s", raw)
		}
		if strings.Contains(raw, secret) || strings.Contains(raw, secret[5:]) || strings.Contains(raw, "hdr-token-123") {
			t.Fatalf("plaintext secret in the webhooks table: %s", raw)
		}
		fmt.Printf("webhooks row holds %d bytes, none of them the %d-character secret\n", len(raw), len(secret))

		code, list := e.do(e.adminA, "GET", "/v1/workspace/webhooks", nil)
		hooks, _ := list["webhooks"].([]any)
		if code != 200 || len(hooks) != 1 {
			t.Fatalf("list: %d %v", code, list)
		}
		h := hooks[0].(map[string]any)
		for _, k := range webhookKeys {
			if _, ok := h[k]; !ok {
				t.Errorf("list item lacks required %s: %v", k, h)
			}
		}
		if h["webhook_id"] != id || h["auth_type"] != "hmac" || h["is_disabled"] != false || h["usage"] != nil || h["events"] != nil {
			t.Fatalf("list item %v", h)
		}
		if _, leaked := h["webhook_secret"]; leaked {
			t.Fatal("the list shows the secret")
		}

		// Bad input: 422 naming the field, nothing changes.
		for _, c := range []struct {
			body  any
			field string
		}{
			{map[string]any{}, "settings"},
			{map[string]any{"settings": map[string]any{"auth_type": "oauth2", "name": "x", "webhook_url": "https://93.184.216.34/"}}, "auth_type"},
			{createBody("", "https://93.184.216.34/", nil), "name"},
			{createBody("x", "http://93.184.216.34/", nil), "webhook_url"},
			{createBody("x", "https://127.0.0.1:9/hook", nil), "webhook_url"},
			{createBody("x", "https://169.254.169.254/latest/meta-data/", nil), "webhook_url"},
			{createBody("x", "https://10.0.0.8/", nil), "webhook_url"},
			{createBody("x", "https://[::1]/", nil), "webhook_url"},
			{createBody("x", "https://localhost/", nil), "webhook_url"},
			// Numeric forms the system resolver reads as 127.0.0.1 and 169.254.169.254.
			{createBody("x", "https://2130706433/", nil), "webhook_url"},
			{createBody("x", "https://0x7f.1/", nil), "webhook_url"},
			{createBody("x", "https://127.1/", nil), "webhook_url"},
			{createBody("x", "https://0251.0376.0251.0376/", nil), "webhook_url"},
			{createBody("x", "https://93.184.216.34/", map[string]string{"ElevenLabs-Signature": "forged"}), "ElevenLabs-Signature"},
			{createBody("x", "https://93.184.216.34/", map[string]string{"X-A": "line\r\nInjected: 1"}), "X-A"},
		} {
			code, body := e.do(e.adminA, "POST", "/v1/workspace/webhooks", c.body)
			wantInvalid(t, code, body, c.field)
		}
		code, body := e.do(e.adminA, "PATCH", "/v1/workspace/webhooks/"+id, map[string]any{"name": "x"})
		wantInvalid(t, code, body, "is_disabled")
		code, body = e.do(e.adminA, "PATCH", "/v1/workspace/webhooks/"+id, map[string]any{"name": "x", "is_disabled": false, "events": []string{"tts"}})
		wantInvalid(t, code, body, "events")
		code, body = e.do(e.adminA, "GET", "/v1/workspace/webhooks?include_usages=maybe", nil)
		wantInvalid(t, code, body, "include_usages")
		_, list = e.do(e.adminA, "GET", "/v1/workspace/webhooks?include_usages=true", nil)
		if hooks := list["webhooks"].([]any); len(hooks) != 1 || hooks[0].(map[string]any)["name"] != "Transcripts" {
			t.Fatalf("bad input changed something: %v", list)
		}

		code, body = e.do(e.adminA, "PATCH", "/v1/workspace/webhooks/"+id, map[string]any{"name": "STT", "is_disabled": true, "events": []string{"speech_to_text", "flows"}, "retry_enabled": false})
		if code != 200 || body["status"] != "ok" {
			t.Fatalf("patch: %d %v", code, body)
		}
		_, list = e.do(e.adminA, "GET", "/v1/workspace/webhooks?include_usages=true", nil)
		h = list["webhooks"].([]any)[0].(map[string]any)
		if h["name"] != "STT" || h["is_disabled"] != true || fmt.Sprint(h["events"]) != "[flows speech_to_text]" ||
			fmt.Sprint(h["usage"]) != "[map[usage_type:Flows] map[usage_type:Speech to Text]]" {
			t.Fatalf("after patch: %v", h)
		}

		// Workspace B: sees none of A's webhooks and cannot touch them.
		_, listB := e.do(e.adminB, "GET", "/v1/workspace/webhooks", nil)
		if hooks := listB["webhooks"].([]any); len(hooks) != 0 {
			t.Fatalf("B lists A's webhooks: %v", listB)
		}
		for _, c := range []struct{ method, path string }{{"PATCH", "/v1/workspace/webhooks/" + id}, {"DELETE", "/v1/workspace/webhooks/" + id}, {"GET", "/api/workspace/webhooks/" + id + "/deliveries"}} {
			if code, body := e.do(e.adminB, c.method, c.path, map[string]any{"name": "pwned", "is_disabled": false}); code != 404 {
				t.Fatalf("B %s %s: %d %v, want 404", c.method, c.path, code, body)
			}
		}
		// An editor of A is refused every route.
		for _, c := range []struct{ method, path string }{{"GET", "/v1/workspace/webhooks"}, {"POST", "/v1/workspace/webhooks"}, {"PATCH", "/v1/workspace/webhooks/" + id},
			{"DELETE", "/v1/workspace/webhooks/" + id}, {"GET", "/api/workspace/webhooks/" + id + "/deliveries"}, {"GET", "/v1/workspace/audit-logs"}} {
			if code, body := e.do(e.editorA, c.method, c.path, createBody("e", "https://93.184.216.34/", nil)); code != 403 {
				t.Fatalf("editor %s %s: %d %v, want 403", c.method, c.path, code, body)
			}
		}
		_, list = e.do(e.adminA, "GET", "/v1/workspace/webhooks", nil)
		if h := list["webhooks"].([]any)[0].(map[string]any); h["name"] != "STT" {
			t.Fatalf("B or the editor changed A's webhook: %v", h)
		}

		if code, body := e.do(e.adminA, "DELETE", "/v1/workspace/webhooks/"+id, nil); code != 200 || body["status"] != "ok" {
			t.Fatalf("delete: %d %v", code, body)
		}
		if code, _ := e.do(e.adminA, "DELETE", "/v1/workspace/webhooks/"+id, nil); code != 404 {
			t.Fatalf("second delete: %d, want 404", code)
		}

		// The audit log: A's admin sees the webhook changes in the API's shape; B sees none.
		code, logs := e.do(e.adminA, "GET", "/v1/workspace/audit-logs?limit=2", nil)
		entries, _ := logs["entries"].([]any)
		if code != 200 || len(entries) != 2 || logs["has_more"] != true || logs["next_cursor"] == nil {
			t.Fatalf("audit page 1: %d %v", code, logs)
		}
		code, logs2 := e.do(e.adminA, "GET", "/v1/workspace/audit-logs?cursor="+logs["next_cursor"].(string), nil)
		entries = append(entries, logs2["entries"].([]any)...)
		if code != 200 || len(entries) != 3 || logs2["has_more"] != false || logs2["next_cursor"] != nil {
			t.Fatalf("audit page 2: %d %v", code, logs2)
		}
		var names []string
		for _, x := range entries {
			en := x.(map[string]any)
			for _, k := range []string{"activity_id", "activity_name", "status_id", "actor", "message", "id", "time_dt", "type_uid", "type_name"} {
				if _, ok := en[k]; !ok {
					t.Errorf("audit entry lacks %s: %v", k, en)
				}
			}
			if en["class_name"] != "Entity Management" || en["class_uid"] != float64(3004) || en["status_id"] != float64(1) {
				t.Errorf("entry class/status: %v", en)
			}
			if want := 300400 + en["activity_id"].(float64); en["type_uid"] != want {
				t.Errorf("type_uid %v, want %v", en["type_uid"], want)
			}
			user := en["actor"].(map[string]any)["user"].(map[string]any)
			if user["uid"] != e.userA || user["email_addr"] != "admin-a@example.com" {
				t.Errorf("actor %v", en["actor"])
			}
			if dev, _ := en["device"].(map[string]any); dev == nil || dev["ip"] != "203.0.113.7" {
				t.Errorf("device %v", en["device"])
			}
			names = append(names, en["activity_name"].(string))
		}
		if got := strings.Join(names, ","); got != "Webhook Deletion,Webhook Disablement,Webhook Creation" {
			t.Fatalf("audit activities %s", got)
		}
		fmt.Printf("audit log of A: %d webhook entries (%s)\n", len(entries), strings.Join(names, ", "))
		_, filtered := e.do(e.adminA, "GET", "/v1/workspace/audit-logs?class_name=Entity%20Management&activity_name=Webhook%20Creation", nil)
		if got := filtered["entries"].([]any); len(got) != 1 || filtered["has_more"] != false {
			t.Fatalf("filtered by OCSF names: %v", filtered)
		}
		_, filtered = e.do(e.adminA, "GET", "/v1/workspace/audit-logs?class_name=Authentication", nil)
		if got := filtered["entries"].([]any); len(got) != 0 {
			t.Fatalf("class filter let other classes through: %v", filtered)
		}
		code, body = e.do(e.adminA, "GET", "/v1/workspace/audit-logs?limit=0", nil)
		wantInvalid(t, code, body, "limit")
		_, logsB := e.do(e.adminB, "GET", "/v1/workspace/audit-logs", nil)
		if got := logsB["entries"].([]any); len(got) != 0 {
			t.Fatalf("B reads A's audit log: %v", logsB)
		}
	})
}

// receiver is an httptest server that checks signatures and answers from a script.
type receiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	secret  string
	answers []int // status per request; the last repeats
	got     []http.Header
	bodies  [][]byte
	badSigs atomic.Int32
	hits    atomic.Int32
}

func newReceiver(t *testing.T, answers ...int) *receiver {
	rc := &receiver{answers: answers}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		n := int(rc.hits.Add(1))
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if err := webhook.Verify(rc.secret, body, r.Header.Get(webhook.SignatureHeader), 0, time.Now()); err != nil {
			rc.badSigs.Add(1)
		}
		rc.got, rc.bodies = append(rc.got, r.Header.Clone()), append(rc.bodies, body)
		w.WriteHeader(rc.answers[min(n, len(rc.answers))-1])
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func startJobs(t *testing.T, db *store.DB, svc *webhook.Service) {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, &webhook.DeliverWorker{Svc: svc})
	c, err := jobs.NewWithConfig(db, jobs.Config{Logger: quiet, Workers: workers, QueueWorkers: 2, FetchPollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	svc.SetJobs(c)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func (e *env) deliveries(key, id string) []map[string]any {
	e.t.Helper()
	code, body := e.do(key, "GET", "/api/workspace/webhooks/"+id+"/deliveries", nil)
	if code != 200 {
		e.t.Fatalf("deliveries: %d %v", code, body)
	}
	var out []map[string]any
	for _, d := range body["deliveries"].([]any) {
		out = append(out, d.(map[string]any))
	}
	return out
}

func (e *env) createSubscribed(url string, headers map[string]string, events ...string) (string, string) {
	e.t.Helper()
	code, created := e.do(e.adminA, "POST", "/v1/workspace/webhooks", createBody("hook", url, headers))
	if code != 200 {
		e.t.Fatalf("create: %d %v", code, created)
	}
	id := created["webhook_id"].(string)
	if code, body := e.do(e.adminA, "PATCH", "/v1/workspace/webhooks/"+id, map[string]any{"name": "hook", "is_disabled": false, "events": events}); code != 200 {
		e.t.Fatalf("subscribe: %d %v", code, body)
	}
	return id, created["webhook_secret"].(string)
}

func TestDeliveryRetriesThenSucceeds(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, true)
		startJobs(t, db, e.svc)
		rc := newReceiver(t, 500, 200)
		id, secret := e.createSubscribed(rc.srv.URL+"/hook", map[string]string{"X-Tenant": "acme"}, "speech_to_text")
		rc.mu.Lock()
		rc.secret = secret
		rc.mu.Unlock()

		ctx := context.Background()
		if err := e.svc.Emit(ctx, e.wsA, "speech_to_text", map[string]any{"transcription_id": "tr_1", "text": "hello"}); err != nil {
			t.Fatal(err)
		}
		// Events nobody subscribed to, and other workspaces' events, go nowhere.
		if err := e.svc.Emit(ctx, e.wsA, "flows", map[string]any{}); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.Emit(ctx, e.wsB, "speech_to_text", map[string]any{}); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.Emit(ctx, e.wsA, "text_to_speech", map[string]any{}); err == nil {
			t.Fatal("an event outside the API's enum was accepted")
		}
		waitFor(t, "two attempts", func() bool { return len(e.deliveries(e.adminA, id)) == 2 })
		time.Sleep(200 * time.Millisecond) // no third attempt follows a success
		log := e.deliveries(e.adminA, id)
		if rc.hits.Load() != 2 || len(log) != 2 {
			t.Fatalf("receiver got %d requests, log has %d", rc.hits.Load(), len(log))
		}
		if rc.badSigs.Load() != 0 {
			t.Fatalf("%d deliveries failed signature verification", rc.badSigs.Load())
		}
		first, second := log[1], log[0]
		if first["attempt"] != float64(1) || first["status_code"] != float64(500) || first["success"] != false || first["will_retry"] != true || first["error"] == nil {
			t.Fatalf("first attempt %v", first)
		}
		if second["attempt"] != float64(2) || second["status_code"] != float64(200) || second["success"] != true || second["error"] != nil ||
			second["delivery_id"] != first["delivery_id"] || second["event_type"] != "speech_to_text" {
			t.Fatalf("second attempt %v", second)
		}
		rc.mu.Lock()
		hdr, body := rc.got[1], rc.bodies[1]
		rc.mu.Unlock()
		if hdr.Get("X-Tenant") != "acme" || hdr.Get("Content-Type") != "application/json" {
			t.Fatalf("headers %v", hdr)
		}
		var payload map[string]any
		if err := json.Unmarshal(body, &payload); err != nil || payload["type"] != "speech_to_text_transcription" || payload["event_timestamp"] == nil ||
			payload["data"].(map[string]any)["transcription_id"] != "tr_1" {
			t.Fatalf("payload %s", body)
		}
		_, list := e.do(e.adminA, "GET", "/v1/workspace/webhooks", nil)
		if h := list["webhooks"].([]any)[0].(map[string]any); h["most_recent_failure_error_code"] != float64(500) || h["is_auto_disabled"] != false {
			t.Fatalf("failure fields %v", h)
		}
		fmt.Printf("delivery: attempt 1 → 500 (retried after %v), attempt 2 → 200; %d signatures verified\n", e.svc.Backoff[0], rc.hits.Load())
	})
}

func TestDeliveryAutoDisableAndReEnable(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, true) // MaxFailures 3
		startJobs(t, db, e.svc)
		rc := newReceiver(t, 503)
		id, secret := e.createSubscribed(rc.srv.URL, nil, "flows")
		rc.mu.Lock()
		rc.secret = secret
		rc.mu.Unlock()
		if err := e.svc.Emit(context.Background(), e.wsA, "flows", map[string]any{"flow": 1}); err != nil {
			t.Fatal(err)
		}
		isAutoDisabled := func() bool {
			_, list := e.do(e.adminA, "GET", "/v1/workspace/webhooks", nil)
			return list["webhooks"].([]any)[0].(map[string]any)["is_auto_disabled"] == true
		}
		waitFor(t, "auto-disable", isAutoDisabled)
		time.Sleep(300 * time.Millisecond) // no more attempts once disabled
		log := e.deliveries(e.adminA, id)
		if len(log) != 3 || rc.hits.Load() != 3 {
			t.Fatalf("%d attempts logged, %d received; want 3", len(log), rc.hits.Load())
		}
		if log[0]["will_retry"] != false || log[0]["status_code"] != float64(503) {
			t.Fatalf("last attempt %v", log[0])
		}
		// Disabled: new events are not delivered.
		_ = e.svc.Emit(context.Background(), e.wsA, "flows", map[string]any{"flow": 2})
		time.Sleep(200 * time.Millisecond)
		if rc.hits.Load() != 3 {
			t.Fatal("an auto-disabled webhook received an event")
		}
		_, logs := e.do(e.adminA, "GET", "/v1/workspace/audit-logs?activity_name=auto_disable", nil)
		entries := logs["entries"].([]any)
		if len(entries) != 1 {
			t.Fatalf("auto-disable not audited: %v", logs)
		}
		if en := entries[0].(map[string]any); en["activity_name"] != "Webhook Automatic Disablement" || en["actor"].(map[string]any)["user"].(map[string]any)["type"] != "System" {
			t.Fatalf("auto-disable entry %v", en)
		}

		// Re-enable by PATCH: the flag clears and deliveries resume.
		rc.mu.Lock()
		rc.answers = []int{204}
		rc.hits.Store(0)
		rc.mu.Unlock()
		if code, body := e.do(e.adminA, "PATCH", "/v1/workspace/webhooks/"+id, map[string]any{"name": "hook", "is_disabled": false}); code != 200 {
			t.Fatalf("re-enable: %d %v", code, body)
		}
		if isAutoDisabled() {
			t.Fatal("still auto-disabled after re-enable")
		}
		_ = e.svc.Emit(context.Background(), e.wsA, "flows", map[string]any{"flow": 3})
		waitFor(t, "delivery after re-enable", func() bool { return len(e.deliveries(e.adminA, id)) == 4 })
		if d := e.deliveries(e.adminA, id)[0]; d["success"] != true || d["status_code"] != float64(204) {
			t.Fatalf("after re-enable %v", d)
		}
		fmt.Printf("auto-disable: disabled after %d consecutive failures; re-enabled and delivered\n", e.svc.MaxFailures)
	})
}

// TestDeliveryRefusedAtDialTime: a webhook saved while loopback was allowed is refused when
// the operator no longer allows it — the check runs on the resolved address at dial time.
func TestDeliveryRefusedAtDialTime(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, true)
		rc := newReceiver(t, 200)
		id, _ := e.createSubscribed(strings.Replace(rc.srv.URL, "127.0.0.1", "localhost", 1), nil, "agent_qa")
		e.svc.Guard = &netguard.Guard{}
		e.svc.HTTP = e.svc.Guard.Client(netguard.ClientOptions{Timeout: 5 * time.Second})
		startJobs(t, db, e.svc)
		if err := e.svc.Emit(context.Background(), e.wsA, "agent_qa", map[string]any{}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "refused attempt", func() bool { return len(e.deliveries(e.adminA, id)) == 1 })
		time.Sleep(200 * time.Millisecond)
		log := e.deliveries(e.adminA, id)
		if len(log) != 1 || log[0]["success"] != false || log[0]["will_retry"] != false || !strings.Contains(fmt.Sprint(log[0]["error"]), "refused") {
			t.Fatalf("log %v", log)
		}
		if rc.hits.Load() != 0 {
			t.Fatal("the loopback receiver was reached")
		}
	})
}

// TestSendTestEvent: POST …/test delivers a signed webhook_test event to that webhook only (it is
// subscribed to nothing), logs it, and answers 202 with the delivery id; other workspaces get
// 404, editors 403, a disabled webhook 409; failed test attempts never count towards auto-disable.
func TestSendTestEvent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, true) // MaxFailures 3
		startJobs(t, db, e.svc)
		rc := newReceiver(t, 200)
		id, secret := e.createSubscribed(rc.srv.URL+"/hook", map[string]string{"X-Tenant": "acme"}) // no events
		other := newReceiver(t, 200)
		otherID, _ := e.createSubscribed(other.srv.URL+"/other", nil, "speech_to_text")
		rc.mu.Lock()
		rc.secret = secret
		rc.mu.Unlock()

		before := time.Now().Unix()
		code, body := e.do(e.adminA, "POST", "/api/workspace/webhooks/"+id+"/test", nil)
		deliveryID, _ := body["delivery_id"].(string)
		if code != http.StatusAccepted || deliveryID == "" || body["event_type"] != "webhook_test" {
			t.Fatalf("test event: %d %v", code, body)
		}
		waitFor(t, "the test delivery", func() bool { return len(e.deliveries(e.adminA, id)) == 1 })
		log := e.deliveries(e.adminA, id)
		if d := log[0]; d["delivery_id"] != deliveryID || d["event_type"] != "webhook_test" || d["success"] != true || d["status_code"] != float64(200) || d["attempt"] != float64(1) {
			t.Fatalf("log entry %v", d)
		}
		rc.mu.Lock()
		hdr, raw := rc.got[0], rc.bodies[0]
		rc.mu.Unlock()
		// The receiver's view: the signature verifies with this webhook's secret and no other.
		sig := hdr.Get(webhook.SignatureHeader)
		if err := webhook.Verify(secret, raw, sig, 0, time.Now()); err != nil || rc.badSigs.Load() != 0 {
			t.Fatalf("signature %q does not verify: %v", sig, err)
		}
		if err := webhook.Verify(secret+"x", raw, sig, 0, time.Now()); err == nil {
			t.Fatal("the signature verifies with a wrong secret")
		}
		if hdr.Get("X-Tenant") != "acme" || hdr.Get("Content-Type") != "application/json" {
			t.Fatalf("headers %v", hdr)
		}
		var payload struct {
			Type           string         `json:"type"`
			EventTimestamp int64          `json:"event_timestamp"`
			Data           map[string]any `json:"data"`
		}
		if err := json.Unmarshal(raw, &payload); err != nil {
			t.Fatalf("payload %s: %v", raw, err)
		}
		if payload.Type != "webhook_test" || payload.EventTimestamp < before || payload.EventTimestamp > time.Now().Unix() ||
			payload.Data["webhook_id"] != id || payload.Data["workspace_id"] != e.wsA || payload.Data["message"] == nil {
			t.Fatalf("payload %s", raw)
		}
		if other.hits.Load() != 0 || len(e.deliveries(e.adminA, otherID)) != 0 {
			t.Fatal("the test event reached another webhook")
		}

		// Workspace B's admin cannot test A's webhook; A's editor is refused; unknown ids are 404.
		if code, body := e.do(e.adminB, "POST", "/api/workspace/webhooks/"+id+"/test", nil); code != 404 || body["detail"].(map[string]any)["status"] != "webhook_not_found" {
			t.Fatalf("B tests A's webhook: %d %v", code, body)
		}
		if code, body := e.do(e.editorA, "POST", "/api/workspace/webhooks/"+id+"/test", nil); code != 403 {
			t.Fatalf("editor tests a webhook: %d %v", code, body)
		}
		if code, _ := e.do(e.adminA, "POST", "/api/workspace/webhooks/nope/test", nil); code != 404 {
			t.Fatalf("unknown webhook: %d", code)
		}
		time.Sleep(200 * time.Millisecond)
		if rc.hits.Load() != 1 || len(e.deliveries(e.adminA, id)) != 1 {
			t.Fatalf("refused calls delivered something: %d hits", rc.hits.Load())
		}

		// A failing endpoint: the test is retried and logged, but never auto-disables the
		// webhook (MaxFailures is 3) nor sets its most recent failure.
		rc.mu.Lock()
		rc.answers = []int{503}
		rc.hits.Store(0)
		rc.mu.Unlock()
		code, body = e.do(e.adminA, "POST", "/api/workspace/webhooks/"+id+"/test", nil)
		if code != http.StatusAccepted {
			t.Fatalf("second test: %d %v", code, body)
		}
		failing := body["delivery_id"].(string)
		waitFor(t, "four failed test attempts", func() bool { return rc.hits.Load() >= 4 })
		waitFor(t, "four logged attempts", func() bool { return len(e.deliveries(e.adminA, id)) >= 5 })
		for _, d := range e.deliveries(e.adminA, id)[:4] {
			if d["delivery_id"] != failing || d["success"] != false || d["status_code"] != float64(503) || d["will_retry"] != true {
				t.Fatalf("failed test attempt %v", d)
			}
		}
		_, list := e.do(e.adminA, "GET", "/v1/workspace/webhooks", nil)
		for _, x := range list["webhooks"].([]any) {
			if h := x.(map[string]any); h["webhook_id"] == id && (h["is_auto_disabled"] != false || h["most_recent_failure_error_code"] != nil) {
				t.Fatalf("a failing test changed the webhook's failure state: %v", h)
			}
		}

		// A disabled webhook: 409, nothing queued.
		if code, body := e.do(e.adminA, "PATCH", "/v1/workspace/webhooks/"+otherID, map[string]any{"name": "hook", "is_disabled": true}); code != 200 {
			t.Fatalf("disable: %d %v", code, body)
		}
		code, body = e.do(e.adminA, "POST", "/api/workspace/webhooks/"+otherID+"/test", nil)
		if code != http.StatusConflict || body["detail"].(map[string]any)["status"] != "webhook_disabled" {
			t.Fatalf("disabled webhook: %d %v", code, body)
		}
		time.Sleep(200 * time.Millisecond)
		if other.hits.Load() != 0 {
			t.Fatal("a disabled webhook received a test event")
		}
		fmt.Printf("test event: %d-byte webhook_test delivered, signature verified; 4 failed test attempts left the webhook enabled\n", len(raw))
	})
}
