package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// t0 is the suite's clock: tests pass explicit times, never time.Now, so period maths is exact.
var t0 = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

// ---- helpers ----------------------------------------------------------------------------------

func newUser(t *testing.T, db *store.DB, email string) (*store.User, *store.Workspace) {
	t.Helper()
	u, w, err := db.CreateUserWithWorkspace(context.Background(), email, "argon2id$hash", false, "free", t0)
	if err != nil {
		t.Fatalf("CreateUserWithWorkspace(%q): %v", email, err)
	}
	return u, w
}

func rebind(db *store.DB, q string) string { return db.Dialect.Rebind(q) }

// rawExec runs SQL straight on the database, bypassing the store (to set up rows the store has
// no method for, or to inspect what it wrote).
func rawExec(t *testing.T, db *store.DB, q string, args ...any) {
	t.Helper()
	ctx := context.Background()
	var err error
	if db.Dialect == store.Postgres {
		_, err = db.PG.Exec(ctx, rebind(db, q), args...)
	} else {
		_, err = db.SQLiteDB.ExecContext(ctx, q, args...)
	}
	if err != nil {
		t.Fatalf("raw exec %q: %v", q, err)
	}
}

// rawRows reads rows straight from the database as column → text.
func rawRows(t *testing.T, db *store.DB, q string, args ...any) []map[string]string {
	t.Helper()
	ctx := context.Background()
	var out []map[string]string
	str := func(v any) string {
		switch x := v.(type) {
		case nil:
			return "<NULL>"
		case []byte:
			return string(x)
		default:
			return fmt.Sprint(x)
		}
	}
	if db.Dialect == store.Postgres {
		rows, err := db.PG.Query(ctx, rebind(db, q), args...)
		if err != nil {
			t.Fatalf("raw query %q: %v", q, err)
		}
		defer rows.Close()
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			m := map[string]string{}
			for i, fd := range rows.FieldDescriptions() {
				m[fd.Name] = str(vals[i])
			}
			out = append(out, m)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	rows, err := db.SQLiteDB.QueryContext(ctx, q, args...)
	if err != nil {
		t.Fatalf("raw query %q: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for i, c := range cols {
			m[c] = str(vals[i])
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func rawCount(t *testing.T, db *store.DB, q string, args ...any) int {
	t.Helper()
	rows := rawRows(t, db, q, args...)
	if len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("count query %q returned %v", q, rows)
	}
	for _, v := range rows[0] {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("count query %q: %v", q, err)
		}
		return n
	}
	return 0
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func hist(w *store.Workspace, u *store.User, i int) *store.HistoryItem {
	return &store.HistoryItem{
		ID: store.NewID(), WorkspaceID: w.ID, UserID: u.ID, RequestID: store.NewID(),
		VoiceID: "voice1", VoiceName: "Rachel", VoiceCategory: "premade", ModelID: "eleven_multilingual_v2",
		Text: fmt.Sprintf("hello number %d", i), Settings: `{"stability":0.5}`,
		DateUnix: t0.Unix() + int64(i), Seq: int64(1000 + i), CharFrom: 0, CharTo: 10,
		ContentType: "audio/mpeg", OutputFormat: "mp3_44100_128", Source: "TTS", State: store.StateCreated,
	}
}

func insertHist(t *testing.T, db *store.DB, items ...*store.HistoryItem) {
	t.Helper()
	must(t, "insert history", db.InTx(context.Background(), func(tx *store.Tx) error {
		for _, h := range items {
			if err := tx.InsertHistory(context.Background(), h); err != nil {
				return err
			}
		}
		return nil
	}))
}

func ids(items []store.HistoryItem) []string {
	out := make([]string, len(items))
	for i, h := range items {
		out[i] = h.ID
	}
	return out
}

func charge(db *store.DB, ws string, n, limit int64, now time.Time) (from, to int64, err error) {
	err = db.InTx(context.Background(), func(tx *store.Tx) error {
		var err error
		from, to, err = tx.Charge(context.Background(), ws, n, limit, now)
		return err
	})
	return
}

// ---- tests --------------------------------------------------------------------------------------

func TestOpenMigratePing(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		must(t, "ping", db.Ping(ctx))
		must(t, "migrate again (idempotent)", db.Migrate(ctx))
		if db.Dialect == store.Postgres && (db.PG == nil || db.SQLiteDB != nil) {
			t.Fatal("postgres DB must expose PG and not SQLiteDB")
		}
		if db.Dialect == store.SQLite && (db.SQLiteDB == nil || db.PG != nil || db.SQLitePath == "") {
			t.Fatal("sqlite DB must expose SQLiteDB and SQLitePath, not PG")
		}
	})
}

func TestIDsAndHashes(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := store.NewID()
		if len(id) != 20 || strings.Trim(id, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") != "" {
			t.Fatalf("bad id %q", id)
		}
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		seen[id] = true
	}
	if got := len(store.RandomString(43)); got != 43 {
		t.Fatalf("RandomString(43) has %d chars", got)
	}
	h := store.HashToken("secret")
	if len(h) != 64 || h != store.HashToken("secret") || h == store.HashToken("secret2") {
		t.Fatalf("HashToken: %q", h)
	}
	if store.IsUniqueViolation(nil) || store.IsUniqueViolation(errors.New("boom")) {
		t.Fatal("IsUniqueViolation false positives")
	}
}

func TestUsersAndWorkspaces(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w, err := db.CreateUserWithWorkspace(ctx, "  Alice@Example.COM ", "hash1", true, "creator", t0)
		must(t, "create", err)
		if u.Email != "alice@example.com" || u.WorkspaceID != w.ID || w.OwnerID != u.ID || !u.EmailVerified {
			t.Fatalf("created %+v %+v", u, w)
		}
		if w.Tier != "creator" || w.CharacterCount != 0 || w.PeriodStartUnix != t0.Unix() || w.NextResetUnix != t0.AddDate(0, 1, 0).Unix() {
			t.Fatalf("workspace %+v", w)
		}

		// Unique email, case-insensitively; the failed sign-up leaves nothing behind.
		before := rawCount(t, db, `SELECT COUNT(*) AS n FROM workspaces`)
		_, _, err = db.CreateUserWithWorkspace(ctx, "ALICE@example.com", "hash2", false, "free", t0)
		if err == nil || !store.IsUniqueViolation(err) {
			t.Fatalf("duplicate email: err = %v, want unique violation", err)
		}
		if after := rawCount(t, db, `SELECT COUNT(*) AS n FROM workspaces`); after != before {
			t.Fatalf("failed sign-up left a workspace: %d → %d", before, after)
		}

		got, err := db.UserByEmail(ctx, " aLiCe@example.com")
		must(t, "UserByEmail", err)
		if *got != *u {
			t.Fatalf("UserByEmail = %+v, want %+v", got, u)
		}
		got, err = db.UserByID(ctx, u.ID)
		must(t, "UserByID", err)
		if *got != *u {
			t.Fatalf("UserByID = %+v, want %+v", got, u)
		}
		_, err = db.UserByEmail(ctx, "bob@example.com")
		wantErr(t, "UserByEmail unknown", err, store.ErrNotFound)
		_, err = db.UserByID(ctx, "nope")
		wantErr(t, "UserByID unknown", err, store.ErrNotFound)

		// Email verification.
		bob, bw := newUser(t, db, "bob@example.com")
		if bob.EmailVerified {
			t.Fatal("bob verified at creation")
		}
		must(t, "SetEmailVerified", db.SetEmailVerified(ctx, bob.ID))
		got, _ = db.UserByID(ctx, bob.ID)
		if !got.EmailVerified {
			t.Fatal("SetEmailVerified had no effect")
		}
		wantErr(t, "SetEmailVerified unknown", db.SetEmailVerified(ctx, "nope"), store.ErrNotFound)

		// Workspace, tier.
		ws, err := db.Workspace(ctx, w.ID, t0.Add(time.Hour))
		must(t, "Workspace", err)
		if *ws != *w {
			t.Fatalf("Workspace = %+v, want %+v", ws, w)
		}
		_, err = db.Workspace(ctx, "nope", t0)
		wantErr(t, "Workspace unknown", err, store.ErrNotFound)
		must(t, "SetTier", db.SetTier(ctx, w.ID, "pro"))
		ws, _ = db.Workspace(ctx, w.ID, t0)
		if ws.Tier != "pro" {
			t.Fatalf("tier = %q", ws.Tier)
		}
		wantErr(t, "SetTier unknown", db.SetTier(ctx, "nope", "pro"), store.ErrNotFound)

		// Membership roles.
		role, err := db.Role(ctx, w.ID, u.ID)
		must(t, "Role", err)
		if role != "admin" {
			t.Fatalf("owner role = %q", role)
		}
		_, err = db.Role(ctx, w.ID, bob.ID)
		wantErr(t, "Role of non-member", err, store.ErrNotFound)
		rawExec(t, db, `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (?, ?, ?)`, w.ID, bob.ID, "editor")
		role, err = db.Role(ctx, w.ID, bob.ID)
		must(t, "Role member", err)
		if role != "editor" {
			t.Fatalf("member role = %q", role)
		}
		role, _ = db.Role(ctx, bw.ID, bob.ID)
		if role != "admin" {
			t.Fatalf("bob's own workspace role = %q", role)
		}
	})
}

func TestPeriodRollover(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		_, w := newUser(t, db, "roll@example.com")
		if _, _, err := charge(db, w.ID, 300, 1000, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		ws, _ := db.Workspace(ctx, w.ID, t0.AddDate(0, 0, 20))
		if ws.CharacterCount != 300 || ws.PeriodStartUnix != t0.Unix() {
			t.Fatalf("mid-period: %+v", ws)
		}
		// One second before the reset: unchanged; at the reset: zero, new period.
		reset := t0.AddDate(0, 1, 0)
		ws, _ = db.Workspace(ctx, w.ID, reset.Add(-time.Second))
		if ws.CharacterCount != 300 {
			t.Fatalf("before reset: %+v", ws)
		}
		ws, _ = db.Workspace(ctx, w.ID, reset)
		if ws.CharacterCount != 0 || ws.PeriodStartUnix != reset.Unix() || ws.NextResetUnix != t0.AddDate(0, 2, 0).Unix() {
			t.Fatalf("after reset: %+v", ws)
		}
		// Charge in the new period, then skip several months: the period lands on the right month.
		from, to, err := charge(db, w.ID, 50, 1000, reset.Add(time.Hour))
		if err != nil || from != 0 || to != 50 {
			t.Fatalf("charge after reset: %d %d %v", from, to, err)
		}
		later := t0.AddDate(0, 4, 3)
		from, to, err = charge(db, w.ID, 70, 1000, later)
		if err != nil || from != 0 || to != 70 {
			t.Fatalf("charge months later: %d %d %v", from, to, err)
		}
		ws, _ = db.Workspace(ctx, w.ID, later)
		if ws.PeriodStartUnix != t0.AddDate(0, 4, 0).Unix() || ws.NextResetUnix != t0.AddDate(0, 5, 0).Unix() || ws.CharacterCount != 70 {
			t.Fatalf("months later: %+v", ws)
		}
	})
}

func TestSessions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "s@example.com")
		v, vw := newUser(t, db, "v@example.com")
		exp := t0.Add(24 * time.Hour)
		must(t, "CreateSession", db.CreateSession(ctx, "tok-1", store.Session{UserID: u.ID, WorkspaceID: w.ID, CSRFToken: "csrf1", ExpiresAt: exp.Unix()}, t0))
		must(t, "CreateSession 2", db.CreateSession(ctx, "tok-2", store.Session{UserID: u.ID, WorkspaceID: w.ID, CSRFToken: "csrf2", ExpiresAt: exp.Unix()}, t0))
		must(t, "CreateSession v", db.CreateSession(ctx, "tok-v", store.Session{UserID: v.ID, WorkspaceID: vw.ID, CSRFToken: "csrfv", ExpiresAt: exp.Unix()}, t0))

		s, err := db.SessionByToken(ctx, "tok-1", t0.Add(time.Hour))
		must(t, "SessionByToken", err)
		if s.UserID != u.ID || s.WorkspaceID != w.ID || s.CSRFToken != "csrf1" || s.ExpiresAt != exp.Unix() {
			t.Fatalf("session %+v", s)
		}
		_, err = db.SessionByToken(ctx, "tok-1", exp)
		wantErr(t, "expired session", err, store.ErrNotFound)
		_, err = db.SessionByToken(ctx, "unknown", t0)
		wantErr(t, "unknown session", err, store.ErrNotFound)

		must(t, "DeleteSession", db.DeleteSession(ctx, "tok-1"))
		_, err = db.SessionByToken(ctx, "tok-1", t0)
		wantErr(t, "deleted session", err, store.ErrNotFound)
		must(t, "DeleteSession twice", db.DeleteSession(ctx, "tok-1"))

		// SetPassword ends every session of that user and only that user.
		must(t, "SetPassword", db.InTx(ctx, func(tx *store.Tx) error { return tx.SetPassword(ctx, u.ID, "newhash") }))
		_, err = db.SessionByToken(ctx, "tok-2", t0)
		wantErr(t, "session after SetPassword", err, store.ErrNotFound)
		if _, err := db.SessionByToken(ctx, "tok-v", t0); err != nil {
			t.Fatalf("other user's session ended: %v", err)
		}
		got, _ := db.UserByID(ctx, u.ID)
		if got.PasswordHash != "newhash" {
			t.Fatalf("password hash = %q", got.PasswordHash)
		}
		err = db.InTx(ctx, func(tx *store.Tx) error { return tx.SetPassword(ctx, "nope", "x") })
		wantErr(t, "SetPassword unknown", err, store.ErrNotFound)
	})
}

func TestAPIKeys(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, aw := newUser(t, db, "a@example.com")
		b, bw := newUser(t, db, "b@example.com")
		k1 := store.APIKey{ID: store.NewID(), WorkspaceID: aw.ID, UserID: a.ID, Name: "first", Preview: "sk_a…1111", CreatedAt: t0.Unix()}
		k2 := store.APIKey{ID: store.NewID(), WorkspaceID: aw.ID, UserID: a.ID, Name: "second", Preview: "sk_a…2222", CreatedAt: t0.Unix() + 10}
		kb := store.APIKey{ID: store.NewID(), WorkspaceID: bw.ID, UserID: b.ID, Name: "b", Preview: "sk_b…3333", CreatedAt: t0.Unix()}
		must(t, "create k1", db.CreateAPIKey(ctx, k1, "sk_secret_one"))
		must(t, "create k2", db.CreateAPIKey(ctx, k2, "sk_secret_two"))
		must(t, "create kb", db.CreateAPIKey(ctx, kb, "sk_secret_b"))
		if err := db.CreateAPIKey(ctx, store.APIKey{ID: store.NewID(), WorkspaceID: aw.ID, UserID: a.ID, CreatedAt: t0.Unix()}, "sk_secret_one"); !store.IsUniqueViolation(err) {
			t.Fatalf("same secret twice: %v", err)
		}

		got, err := db.APIKeyBySecret(ctx, "sk_secret_one")
		must(t, "APIKeyBySecret", err)
		if got.ID != k1.ID || got.WorkspaceID != aw.ID || got.UserID != a.ID || got.Name != "first" || got.Preview != k1.Preview || got.CreatedAt != k1.CreatedAt || got.LastUsed != nil {
			t.Fatalf("key %+v", got)
		}
		_, err = db.APIKeyBySecret(ctx, "sk_wrong")
		wantErr(t, "wrong secret", err, store.ErrNotFound)

		list, err := db.ListAPIKeys(ctx, aw.ID)
		must(t, "ListAPIKeys", err)
		if len(list) != 2 || list[0].ID != k2.ID || list[1].ID != k1.ID {
			t.Fatalf("ListAPIKeys(a) = %+v", list)
		}
		list, _ = db.ListAPIKeys(ctx, bw.ID)
		if len(list) != 1 || list[0].ID != kb.ID {
			t.Fatalf("ListAPIKeys(b) = %+v", list)
		}

		// Touch: recorded, then throttled to once a minute.
		must(t, "TouchAPIKey", db.TouchAPIKey(ctx, k1.ID, t0.Add(time.Minute)))
		got, _ = db.APIKeyBySecret(ctx, "sk_secret_one")
		if got.LastUsed == nil || *got.LastUsed != t0.Add(time.Minute).Unix() {
			t.Fatalf("LastUsed = %v", got.LastUsed)
		}
		must(t, "TouchAPIKey soon", db.TouchAPIKey(ctx, k1.ID, t0.Add(time.Minute+30*time.Second)))
		got, _ = db.APIKeyBySecret(ctx, "sk_secret_one")
		if *got.LastUsed != t0.Add(time.Minute).Unix() {
			t.Fatalf("LastUsed moved within a minute: %v", *got.LastUsed)
		}
		must(t, "TouchAPIKey later", db.TouchAPIKey(ctx, k1.ID, t0.Add(3*time.Minute)))
		list, _ = db.ListAPIKeys(ctx, aw.ID)
		if list[1].LastUsed == nil || *list[1].LastUsed != t0.Add(3*time.Minute).Unix() {
			t.Fatalf("LastUsed after a while = %v", list[1].LastUsed)
		}

		// Deleting another workspace's key is not found and leaves it alone.
		wantErr(t, "delete other workspace's key", db.DeleteAPIKey(ctx, aw.ID, kb.ID), store.ErrNotFound)
		if _, err := db.APIKeyBySecret(ctx, "sk_secret_b"); err != nil {
			t.Fatalf("b's key gone after a's delete attempt: %v", err)
		}
		must(t, "DeleteAPIKey", db.DeleteAPIKey(ctx, bw.ID, kb.ID))
		_, err = db.APIKeyBySecret(ctx, "sk_secret_b")
		wantErr(t, "deleted key", err, store.ErrNotFound)
		wantErr(t, "delete twice", db.DeleteAPIKey(ctx, bw.ID, kb.ID), store.ErrNotFound)
	})
}

func TestActionCodes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, _ := newUser(t, db, "codes@example.com")
		exp := t0.Add(time.Hour)
		must(t, "create verify", db.CreateActionCode(ctx, "code-verify", u.ID, store.CodeVerifyEmail, exp))
		must(t, "create reset", db.CreateActionCode(ctx, "code-reset", u.ID, store.CodeResetPassword, exp))

		use := func(code, kind string, now time.Time) (string, error) {
			var id string
			err := db.InTx(ctx, func(tx *store.Tx) error {
				var err error
				id, err = tx.UseActionCode(ctx, code, kind, now)
				return err
			})
			return id, err
		}

		// Peek does not consume.
		for range 2 {
			id, err := db.PeekActionCode(ctx, "code-verify", store.CodeVerifyEmail, t0)
			if err != nil || id != u.ID {
				t.Fatalf("peek: %q %v", id, err)
			}
		}
		// Wrong kind: not found either way, and the code stays usable.
		_, err := db.PeekActionCode(ctx, "code-verify", store.CodeResetPassword, t0)
		wantErr(t, "peek wrong kind", err, store.ErrNotFound)
		_, err = use("code-verify", store.CodeResetPassword, t0)
		wantErr(t, "use wrong kind", err, store.ErrNotFound)
		_, err = db.PeekActionCode(ctx, "no-such-code", store.CodeVerifyEmail, t0)
		wantErr(t, "peek unknown", err, store.ErrNotFound)

		// Single use.
		id, err := use("code-verify", store.CodeVerifyEmail, t0)
		if err != nil || id != u.ID {
			t.Fatalf("use: %q %v", id, err)
		}
		_, err = use("code-verify", store.CodeVerifyEmail, t0)
		wantErr(t, "use twice", err, store.ErrNotFound)
		_, err = db.PeekActionCode(ctx, "code-verify", store.CodeVerifyEmail, t0)
		wantErr(t, "peek used", err, store.ErrNotFound)

		// Expiry (exclusive).
		_, err = db.PeekActionCode(ctx, "code-reset", store.CodeResetPassword, exp)
		wantErr(t, "peek expired", err, store.ErrNotFound)
		_, err = use("code-reset", store.CodeResetPassword, exp.Add(time.Second))
		wantErr(t, "use expired", err, store.ErrNotFound)
		id, err = use("code-reset", store.CodeResetPassword, exp.Add(-time.Second))
		if err != nil || id != u.ID {
			t.Fatalf("use just before expiry: %q %v", id, err)
		}

		// A rolled-back use leaves the code usable.
		must(t, "create 3", db.CreateActionCode(ctx, "code-3", u.ID, store.CodeVerifyEmail, exp))
		boom := errors.New("boom")
		err = db.InTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.UseActionCode(ctx, "code-3", store.CodeVerifyEmail, t0); err != nil {
				return err
			}
			return boom
		})
		wantErr(t, "rolled back use", err, boom)
		if _, err := use("code-3", store.CodeVerifyEmail, t0); err != nil {
			t.Fatalf("code unusable after rollback: %v", err)
		}
	})
}

func insertWorkspaceVoice(t *testing.T, db *store.DB, v store.Voice) {
	t.Helper()
	rawExec(t, db, `INSERT INTO voices (id, workspace_id, name, category, description, labels, engine, engine_voice, language, prosody, preview_key, sort_order, created_at_unix)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		v.ID, v.WorkspaceID, v.Name, v.Category, v.Description, v.Labels, v.Engine, v.EngineVoice, v.Language, v.Prosody, v.PreviewKey, v.SortOrder, v.CreatedAt)
}

func voiceIDs(vs []store.Voice) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.ID
	}
	return out
}

func sameIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func TestVoices(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		_, aw := newUser(t, db, "va@example.com")
		_, bw := newUser(t, db, "vb@example.com")

		premade := []store.Voice{
			{ID: "p_rachel", Name: "Rachel", Category: "premade", Description: "Calm narrator", Labels: `{"accent":"american"}`, Engine: "espeak", EngineVoice: "en-us", Language: "en", Prosody: `{"pitch":50}`, SortOrder: 2, CreatedAt: 100},
			{ID: "p_adam", Name: "adam", Category: "premade", Description: "Deep voice", Labels: `{"accent":"british"}`, Engine: "espeak", EngineVoice: "en-gb", Language: "en", Prosody: `{"pitch":30}`, SortOrder: 1, CreatedAt: 300},
			{ID: "p_zoe", Name: "Zoe", Category: "premade", Description: "100% energetic", Labels: `{"use_case":"ads"}`, Engine: "espeak", EngineVoice: "fr", Language: "fr", Prosody: `{}`, SortOrder: 3, CreatedAt: 200},
		}
		for _, v := range premade {
			must(t, "UpsertPremadeVoice", db.UpsertPremadeVoice(ctx, v))
		}
		aVoice := store.Voice{ID: "a_clone", WorkspaceID: aw.ID, Name: "My Clone", Category: "cloned", Description: "mine", Labels: `{}`, Engine: "espeak", EngineVoice: "en-us", Language: "en", Prosody: `{}`, SortOrder: 0, CreatedAt: 400}
		aGen := store.Voice{ID: "a_gen", WorkspaceID: aw.ID, Name: "Designed", Category: "generated", Description: "made up", Labels: `{}`, Engine: "espeak", EngineVoice: "en-us", Language: "en", Prosody: `{}`, SortOrder: 0, CreatedAt: 500}
		bVoice := store.Voice{ID: "b_clone", WorkspaceID: bw.ID, Name: "B Clone", Category: "cloned", Description: "b's", Labels: `{}`, Engine: "espeak", EngineVoice: "en-us", Language: "en", Prosody: `{}`, SortOrder: 0, CreatedAt: 450}
		insertWorkspaceVoice(t, db, aVoice)
		insertWorkspaceVoice(t, db, aGen)
		insertWorkspaceVoice(t, db, bVoice)

		// Visibility.
		v, err := db.Voice(ctx, aw.ID, "p_rachel")
		must(t, "premade visible", err)
		if v.WorkspaceID != "" || v.Name != "Rachel" || v.Labels != premade[0].Labels || v.Prosody != premade[0].Prosody || v.SortOrder != 2 || v.CreatedAt != 100 {
			t.Fatalf("premade voice %+v", v)
		}
		if _, err := db.Voice(ctx, bw.ID, "p_rachel"); err != nil {
			t.Fatalf("premade not visible to b: %v", err)
		}
		if _, err := db.Voice(ctx, aw.ID, "a_clone"); err != nil {
			t.Fatalf("own voice not visible: %v", err)
		}
		_, err = db.Voice(ctx, bw.ID, "a_clone")
		wantErr(t, "other workspace's voice", err, store.ErrNotFound)
		_, err = db.Voice(ctx, aw.ID, "nope")
		wantErr(t, "unknown voice", err, store.ErrNotFound)

		list := func(ws string, f store.VoiceFilter) ([]string, int) {
			t.Helper()
			vs, total, err := db.ListVoices(ctx, ws, f)
			must(t, "ListVoices", err)
			return voiceIDs(vs), total
		}
		got, total := list(aw.ID, store.VoiceFilter{})
		sameIDs(t, "a default order", got, []string{"a_gen", "a_clone", "p_adam", "p_rachel", "p_zoe"}) // sort_order, name, id: "Designed" < "My Clone"
		if total != 5 {
			t.Fatalf("total = %d", total)
		}
		got, total = list(bw.ID, store.VoiceFilter{})
		sameIDs(t, "b", got, []string{"b_clone", "p_adam", "p_rachel", "p_zoe"})
		if total != 4 {
			t.Fatalf("b total = %d", total)
		}

		// Search: name, description, labels; case-insensitive; LIKE wildcards are literal.
		got, total = list(aw.ID, store.VoiceFilter{Search: "RACH"})
		sameIDs(t, "search name", got, []string{"p_rachel"})
		got, _ = list(aw.ID, store.VoiceFilter{Search: "deep"})
		sameIDs(t, "search description", got, []string{"p_adam"})
		got, _ = list(aw.ID, store.VoiceFilter{Search: "British"})
		sameIDs(t, "search labels", got, []string{"p_adam"})
		got, _ = list(aw.ID, store.VoiceFilter{Search: "100%"})
		sameIDs(t, "search percent", got, []string{"p_zoe"})
		got, total = list(aw.ID, store.VoiceFilter{Search: "%"})
		sameIDs(t, "search bare percent", got, []string{"p_zoe"})
		got, total = list(aw.ID, store.VoiceFilter{Search: "_"})
		sameIDs(t, "search underscore", got, []string{"p_zoe"}) // only in {"use_case":...}
		if total != 1 {
			t.Fatalf("search total = %d", total)
		}
		got, _ = list(bw.ID, store.VoiceFilter{Search: "clone"})
		sameIDs(t, "search scoped", got, []string{"b_clone"})

		// Category and voice type.
		got, _ = list(aw.ID, store.VoiceFilter{Category: "cloned"})
		sameIDs(t, "category cloned", got, []string{"a_clone"})
		got, _ = list(aw.ID, store.VoiceFilter{Category: "premade"})
		sameIDs(t, "category premade", got, []string{"p_adam", "p_rachel", "p_zoe"})
		got, _ = list(aw.ID, store.VoiceFilter{VoiceType: "default"})
		sameIDs(t, "type default", got, []string{"p_adam", "p_rachel", "p_zoe"})
		for _, vt := range []string{"personal", "workspace", "non-default", "saved"} {
			got, _ = list(aw.ID, store.VoiceFilter{VoiceType: vt})
			sameIDs(t, "type "+vt, got, []string{"a_gen", "a_clone"})
		}
		got, total = list(aw.ID, store.VoiceFilter{VoiceType: "community"})
		if len(got) != 0 || total != 0 {
			t.Fatalf("community = %v %d", got, total)
		}

		// Sort.
		got, _ = list(aw.ID, store.VoiceFilter{Sort: "name"})
		sameIDs(t, "sort name", got, []string{"p_adam", "a_gen", "a_clone", "p_rachel", "p_zoe"})
		got, _ = list(aw.ID, store.VoiceFilter{Sort: "name", Desc: true})
		sameIDs(t, "sort name desc", got, []string{"p_zoe", "p_rachel", "a_clone", "a_gen", "p_adam"})
		got, _ = list(aw.ID, store.VoiceFilter{Sort: "created_at_unix"})
		sameIDs(t, "sort created", got, []string{"p_rachel", "p_zoe", "p_adam", "a_clone", "a_gen"})
		got, _ = list(aw.ID, store.VoiceFilter{Sort: "created_at_unix", Desc: true})
		sameIDs(t, "sort created desc", got, []string{"a_gen", "a_clone", "p_adam", "p_zoe", "p_rachel"})

		// Limit/offset keep the total of all matches.
		got, total = list(aw.ID, store.VoiceFilter{Sort: "created_at_unix", Limit: 2, Offset: 1})
		sameIDs(t, "limit/offset", got, []string{"p_zoe", "p_adam"})
		if total != 5 {
			t.Fatalf("limit total = %d", total)
		}
		got, total = list(aw.ID, store.VoiceFilter{Sort: "created_at_unix", Limit: 2, Offset: 4})
		sameIDs(t, "last page", got, []string{"a_gen"})
		got, total = list(aw.ID, store.VoiceFilter{Limit: 2, Offset: 10})
		if len(got) != 0 || total != 5 {
			t.Fatalf("past the end: %v %d", got, total)
		}

		// IDs filter never reveals another workspace's voice.
		got, total = list(aw.ID, store.VoiceFilter{IDs: []string{"p_zoe", "a_clone", "b_clone"}})
		sameIDs(t, "ids", got, []string{"a_clone", "p_zoe"})
		if total != 2 {
			t.Fatalf("ids total = %d", total)
		}

		// Preview survives an unchanged upsert and is cleared when the voice's sound changes.
		must(t, "SetVoicePreview", db.SetVoicePreview(ctx, "p_rachel", "previews/rachel.mp3"))
		wantErr(t, "SetVoicePreview unknown", db.SetVoicePreview(ctx, "nope", "k"), store.ErrNotFound)
		r := premade[0]
		r.Name, r.Description, r.SortOrder = "Rachel 2", "Renamed", 9
		must(t, "upsert unchanged sound", db.UpsertPremadeVoice(ctx, r))
		v, _ = db.Voice(ctx, aw.ID, "p_rachel")
		if v.PreviewKey != "previews/rachel.mp3" || v.Name != "Rachel 2" || v.Description != "Renamed" || v.SortOrder != 9 {
			t.Fatalf("after unchanged upsert: %+v", v)
		}
		r.Prosody = `{"pitch":60}`
		must(t, "upsert changed prosody", db.UpsertPremadeVoice(ctx, r))
		v, _ = db.Voice(ctx, aw.ID, "p_rachel")
		if v.PreviewKey != "" || v.Prosody != `{"pitch":60}` {
			t.Fatalf("after changed prosody: %+v", v)
		}
		must(t, "SetVoicePreview", db.SetVoicePreview(ctx, "p_rachel", "previews/rachel2.mp3"))
		r.EngineVoice = "en-us+f2"
		must(t, "upsert changed engine voice", db.UpsertPremadeVoice(ctx, r))
		v, _ = db.Voice(ctx, aw.ID, "p_rachel")
		if v.PreviewKey != "" || v.EngineVoice != "en-us+f2" {
			t.Fatalf("after changed engine voice: %+v", v)
		}

		// Voice settings are per workspace.
		_, err = db.VoiceSettings(ctx, aw.ID, "p_rachel")
		wantErr(t, "no settings yet", err, store.ErrNotFound)
		must(t, "SetVoiceSettings", db.SetVoiceSettings(ctx, aw.ID, "p_rachel", `{"stability":0.1}`))
		must(t, "SetVoiceSettings again", db.SetVoiceSettings(ctx, aw.ID, "p_rachel", `{"stability":0.2}`))
		s, err := db.VoiceSettings(ctx, aw.ID, "p_rachel")
		if err != nil || s != `{"stability":0.2}` {
			t.Fatalf("settings a: %q %v", s, err)
		}
		_, err = db.VoiceSettings(ctx, bw.ID, "p_rachel")
		wantErr(t, "settings scoped", err, store.ErrNotFound)
		must(t, "SetVoiceSettings b", db.SetVoiceSettings(ctx, bw.ID, "p_rachel", `{"stability":0.9}`))
		s, _ = db.VoiceSettings(ctx, aw.ID, "p_rachel")
		if s != `{"stability":0.2}` {
			t.Fatalf("b's settings changed a's: %q", s)
		}

		// Premade voices no engine offers any more go; workspace voices stay.
		must(t, "DeletePremadeVoicesExcept", db.DeletePremadeVoicesExcept(ctx, []string{"p_rachel", "a_clone"}))
		got, _ = list(aw.ID, store.VoiceFilter{})
		sameIDs(t, "after prune", got, []string{"a_gen", "a_clone", "p_rachel"})
		must(t, "DeletePremadeVoicesExcept none", db.DeletePremadeVoicesExcept(ctx, nil))
		got, _ = list(aw.ID, store.VoiceFilter{})
		sameIDs(t, "after prune all", got, []string{"a_gen", "a_clone"})
		got, _ = list(bw.ID, store.VoiceFilter{})
		sameIDs(t, "b after prune all", got, []string{"b_clone"})
	})
}

func TestHistoryPagination(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "h@example.com")
		ou, ow := newUser(t, db, "other@example.com")
		var items []*store.HistoryItem
		for i := range 37 {
			h := hist(w, u, i)
			if i >= 10 && i < 20 {
				h.Seq = 5000 // ties are broken by id
			}
			items = append(items, h)
		}
		insertHist(t, db, items...)
		for i := range 5 {
			insertHist(t, db, hist(ow, ou, i))
		}

		for _, asc := range []bool{false, true} {
			all, more, err := db.ListHistory(ctx, w.ID, store.HistoryFilter{PageSize: 1000, Ascending: asc})
			must(t, "ListHistory all", err)
			if len(all) != 37 || more {
				t.Fatalf("all: %d items, more=%v", len(all), more)
			}
			for i := 1; i < len(all); i++ {
				if (!asc && all[i].Seq > all[i-1].Seq) || (asc && all[i].Seq < all[i-1].Seq) {
					t.Fatalf("order broken at %d (asc=%v)", i, asc)
				}
			}
			// Walk in pages of 4: same sequence, no gaps, no duplicates.
			var walked []store.HistoryItem
			after := ""
			for pages := 0; ; pages++ {
				page, more, err := db.ListHistory(ctx, w.ID, store.HistoryFilter{PageSize: 4, StartAfterID: after, Ascending: asc})
				must(t, "ListHistory page", err)
				walked = append(walked, page...)
				if !more {
					if len(page) != 37%4 {
						t.Fatalf("last page has %d", len(page))
					}
					break
				}
				if len(page) != 4 || pages > 20 {
					t.Fatalf("page %d has %d items", pages, len(page))
				}
				after = page[len(page)-1].ID
			}
			sameIDs(t, fmt.Sprintf("paged walk asc=%v", asc), ids(walked), ids(all))
		}

		// The default page size is 100.
		many := make([]*store.HistoryItem, 0, 110)
		for i := range 110 {
			many = append(many, hist(ow, ou, 100+i))
		}
		insertHist(t, db, many...)
		page, more, err := db.ListHistory(ctx, ow.ID, store.HistoryFilter{})
		must(t, "default page size", err)
		if len(page) != 100 || !more {
			t.Fatalf("default page: %d %v", len(page), more)
		}

		_, _, err = db.ListHistory(ctx, w.ID, store.HistoryFilter{StartAfterID: "nope"})
		wantErr(t, "unknown start_after", err, store.ErrNotFound)
		_, _, err = db.ListHistory(ctx, w.ID, store.HistoryFilter{StartAfterID: many[0].ID})
		wantErr(t, "start_after from another workspace", err, store.ErrNotFound)
		// Seq defaults to the insertion time when left zero.
		h := hist(w, u, 99)
		h.Seq = 0
		insertHist(t, db, h)
		if h.Seq == 0 {
			t.Fatal("Seq not defaulted")
		}
	})
}

func TestHistoryFiltersAndLifecycle(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "f@example.com")
		ou, ow := newUser(t, db, "g@example.com")
		mk := func(i int, f func(h *store.HistoryItem)) *store.HistoryItem {
			h := hist(w, u, i)
			f(h)
			insertHist(t, db, h)
			return h
		}
		h1 := mk(1, func(h *store.HistoryItem) { h.VoiceID, h.VoiceName, h.Text = "v_adam", "Adam", "Good Morning" })
		h2 := mk(2, func(h *store.HistoryItem) { h.ModelID, h.Text = "eleven_flash_v2_5", "100% sure" })
		h3 := mk(3, func(h *store.HistoryItem) { h.Source, h.Text = "STS", "1000 things" })
		h4 := mk(4, func(h *store.HistoryItem) { h.Text = "snake_case here" })
		h5 := mk(5, func(h *store.HistoryItem) { h.Text = "snakeXcase there"; h.State = store.StateProcessing })
		other := hist(ow, ou, 1)
		other.Text = "Good Morning elsewhere"
		insertHist(t, db, other)

		list := func(f store.HistoryFilter) []string {
			t.Helper()
			f.PageSize = 100
			items, _, err := db.ListHistory(ctx, w.ID, f)
			must(t, "ListHistory", err)
			return ids(items)
		}
		sameIDs(t, "all", list(store.HistoryFilter{}), []string{h5.ID, h4.ID, h3.ID, h2.ID, h1.ID})
		sameIDs(t, "voice", list(store.HistoryFilter{VoiceID: "v_adam"}), []string{h1.ID})
		sameIDs(t, "model", list(store.HistoryFilter{ModelID: "eleven_flash_v2_5"}), []string{h2.ID})
		sameIDs(t, "source", list(store.HistoryFilter{Source: "STS"}), []string{h3.ID})
		sameIDs(t, "search text", list(store.HistoryFilter{Search: "good MORNING"}), []string{h1.ID})
		sameIDs(t, "search voice name", list(store.HistoryFilter{Search: "adam"}), []string{h1.ID})
		sameIDs(t, "search percent literal", list(store.HistoryFilter{Search: "100%"}), []string{h2.ID})
		sameIDs(t, "search underscore literal", list(store.HistoryFilter{Search: "snake_case"}), []string{h4.ID})
		sameIDs(t, "date before", list(store.HistoryFilter{DateBefore: h3.DateUnix}), []string{h2.ID, h1.ID})
		sameIDs(t, "date after (inclusive)", list(store.HistoryFilter{DateAfter: h3.DateUnix}), []string{h5.ID, h4.ID, h3.ID})
		sameIDs(t, "date window", list(store.HistoryFilter{DateAfter: h2.DateUnix, DateBefore: h4.DateUnix}), []string{h3.ID, h2.ID})
		sameIDs(t, "ascending", list(store.HistoryFilter{Ascending: true}), []string{h1.ID, h2.ID, h3.ID, h4.ID, h5.ID})
		sameIDs(t, "combined", list(store.HistoryFilter{ModelID: "eleven_multilingual_v2", Search: "snake", Ascending: true}), []string{h4.ID, h5.ID})
		// Terms shorter than a trigram, quotes, and substrings across words and within them.
		sameIDs(t, "search two letters", list(store.HistoryFilter{Search: "OD"}), []string{h1.ID})
		sameIDs(t, "search across words", list(store.HistoryFilter{Search: "d mor"}), []string{h1.ID})
		sameIDs(t, "search within a word", list(store.HistoryFilter{Search: "orni"}), []string{h1.ID})
		sameIDs(t, "search miss", list(store.HistoryFilter{Search: "evening"}), nil)
		h6 := mk(6, func(h *store.HistoryItem) { h.Text = `she said "hi" OR NOT` })
		sameIDs(t, "search with quotes", list(store.HistoryFilter{Search: `"hi" or`}), []string{h6.ID})
		sameIDs(t, "search FTS syntax is literal", list(store.HistoryFilter{Search: `hi OR NOT`}), nil)
		// A row gone for good is gone from the search index too.
		must(t, "MarkHistoryDeleted", db.MarkHistoryDeleted(ctx, w.ID, h6.ID, time.Now()))
		must(t, "PurgeHistoryRow", db.PurgeHistoryRow(ctx, w.ID, h6.ID))
		h7 := mk(7, func(h *store.HistoryItem) { h.Text = "said hi again" })
		sameIDs(t, "search after purge", list(store.HistoryFilter{Search: "said"}), []string{h7.ID})
		must(t, "MarkHistoryDeleted", db.MarkHistoryDeleted(ctx, w.ID, h7.ID, time.Now()))

		// Get, scoped; full round trip.
		got, err := db.History(ctx, w.ID, h1.ID)
		must(t, "History", err)
		if *got != *h1 {
			t.Fatalf("History = %+v\nwant %+v", got, h1)
		}
		_, err = db.History(ctx, ow.ID, h1.ID)
		wantErr(t, "History other workspace", err, store.ErrNotFound)

		// Complete.
		must(t, "CompleteHistory", db.CompleteHistory(ctx, w.ID, h5.ID, "history/h5.mp3", `{"chars":["a"]}`))
		got, _ = db.History(ctx, w.ID, h5.ID)
		if got.State != store.StateCreated || got.BlobKey != "history/h5.mp3" || got.Alignments != `{"chars":["a"]}` {
			t.Fatalf("completed: %+v", got)
		}
		wantErr(t, "CompleteHistory other workspace", db.CompleteHistory(ctx, ow.ID, h5.ID, "x", ""), store.ErrNotFound)

		// Feedback: replaceable until reviewed, then locked (however the JSON is spaced).
		must(t, "SetFeedback", db.SetFeedback(ctx, w.ID, h1.ID, `{"thumbs_up":true,"review_status":"not_reviewed"}`))
		must(t, "SetFeedback again", db.SetFeedback(ctx, w.ID, h1.ID, `{"thumbs_up":false,"review_status":"not_reviewed"}`))
		got, _ = db.History(ctx, w.ID, h1.ID)
		if got.Feedback != `{"thumbs_up":false,"review_status":"not_reviewed"}` {
			t.Fatalf("feedback = %q", got.Feedback)
		}
		rawExec(t, db, `UPDATE history SET feedback = ? WHERE id = ?`, `{"thumbs_up":false,"review_status":"reviewed"}`, h1.ID)
		wantErr(t, "SetFeedback reviewed", db.SetFeedback(ctx, w.ID, h1.ID, `{"thumbs_up":true}`), store.ErrFeedbackReviewed)
		rawExec(t, db, `UPDATE history SET feedback = ? WHERE id = ?`, `{"thumbs_up": false, "review_status": "reviewed"}`, h2.ID)
		wantErr(t, "SetFeedback reviewed (spaced JSON)", db.SetFeedback(ctx, w.ID, h2.ID, `{"thumbs_up":true}`), store.ErrFeedbackReviewed)
		got, _ = db.History(ctx, w.ID, h1.ID)
		if !strings.Contains(got.Feedback, `"reviewed"`) {
			t.Fatalf("locked feedback changed: %q", got.Feedback)
		}
		wantErr(t, "SetFeedback other workspace", db.SetFeedback(ctx, ow.ID, h3.ID, `{}`), store.ErrNotFound)

		// Share token: stable once set, public lookup, cleared on delete.
		tok, err := db.SetShareToken(ctx, w.ID, h3.ID, "share-1")
		if err != nil || tok != "share-1" {
			t.Fatalf("SetShareToken: %q %v", tok, err)
		}
		tok, err = db.SetShareToken(ctx, w.ID, h3.ID, "share-2")
		if err != nil || tok != "share-1" {
			t.Fatalf("SetShareToken again: %q %v", tok, err)
		}
		_, err = db.SetShareToken(ctx, ow.ID, h3.ID, "share-3")
		wantErr(t, "SetShareToken other workspace", err, store.ErrNotFound)
		shared, err := db.HistoryByShareToken(ctx, "share-1")
		if err != nil || shared.ID != h3.ID || shared.ShareToken != "share-1" {
			t.Fatalf("HistoryByShareToken: %+v %v", shared, err)
		}
		_, err = db.HistoryByShareToken(ctx, "")
		wantErr(t, "empty share token", err, store.ErrNotFound)
		_, err = db.HistoryByShareToken(ctx, "share-2")
		wantErr(t, "unused share token", err, store.ErrNotFound)

		// Delete: hidden everywhere, token cleared, twice → not found, other workspace can't.
		wantErr(t, "delete other workspace", db.MarkHistoryDeleted(ctx, ow.ID, h3.ID, t0), store.ErrNotFound)
		must(t, "MarkHistoryDeleted", db.MarkHistoryDeleted(ctx, w.ID, h3.ID, t0))
		wantErr(t, "delete twice", db.MarkHistoryDeleted(ctx, w.ID, h3.ID, t0), store.ErrNotFound)
		_, err = db.History(ctx, w.ID, h3.ID)
		wantErr(t, "deleted History", err, store.ErrNotFound)
		_, err = db.HistoryByShareToken(ctx, "share-1")
		wantErr(t, "deleted share", err, store.ErrNotFound)
		if rows := rawRows(t, db, `SELECT share_token FROM history WHERE id = ?`, h3.ID); rows[0]["share_token"] != "<NULL>" {
			t.Fatalf("share token kept after delete: %v", rows)
		}
		_, err = db.SetShareToken(ctx, w.ID, h3.ID, "share-4")
		wantErr(t, "share deleted", err, store.ErrNotFound)
		wantErr(t, "feedback on deleted", db.SetFeedback(ctx, w.ID, h3.ID, `{}`), store.ErrNotFound)
		sameIDs(t, "deleted hidden", list(store.HistoryFilter{}), []string{h5.ID, h4.ID, h2.ID, h1.ID})
		sameIDs(t, "deleted hidden by source", list(store.HistoryFilter{Source: "STS"}), nil)
		// A deleted item still works as a cursor (the client may hold it).
		sameIDs(t, "start after deleted", list(store.HistoryFilter{StartAfterID: h3.ID}), []string{h2.ID, h1.ID})

		// Purge: only deleted rows, once their grace has passed.
		p, err := db.PurgeableHistory(ctx, t0, 10)
		must(t, "PurgeableHistory", err)
		if len(p) != 0 {
			t.Fatalf("purgeable too early: %v", ids(p))
		}
		p, _ = db.PurgeableHistory(ctx, t0.Add(time.Second), 10)
		sameIDs(t, "purgeable", ids(p), []string{h3.ID})
		wantErr(t, "purge live row", db.PurgeHistoryRow(ctx, w.ID, h4.ID), store.ErrNotFound)
		wantErr(t, "purge other workspace", db.PurgeHistoryRow(ctx, ow.ID, h3.ID), store.ErrNotFound)
		must(t, "PurgeHistoryRow", db.PurgeHistoryRow(ctx, w.ID, h3.ID))
		wantErr(t, "purge twice", db.PurgeHistoryRow(ctx, w.ID, h3.ID), store.ErrNotFound)
		if n := rawCount(t, db, `SELECT COUNT(*) AS n FROM history WHERE id = ?`, h3.ID); n != 0 {
			t.Fatal("purged row still there")
		}

		// DeleteHistoryRow (a failed generation) removes outright, scoped to the workspace.
		must(t, "DeleteHistoryRow other", db.InTx(ctx, func(tx *store.Tx) error { return tx.DeleteHistoryRow(ctx, ow.ID, h4.ID) }))
		if _, err := db.History(ctx, w.ID, h4.ID); err != nil {
			t.Fatalf("other workspace deleted row: %v", err)
		}
		must(t, "DeleteHistoryRow", db.InTx(ctx, func(tx *store.Tx) error { return tx.DeleteHistoryRow(ctx, w.ID, h4.ID) }))
		if n := rawCount(t, db, `SELECT COUNT(*) AS n FROM history WHERE id = ?`, h4.ID); n != 0 {
			t.Fatal("DeleteHistoryRow left the row")
		}
	})
}

func TestCharge(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "c@example.com")
		count := func() int64 {
			t.Helper()
			ws, err := db.Workspace(ctx, w.ID, t0)
			must(t, "Workspace", err)
			return ws.CharacterCount
		}
		from, to, err := charge(db, w.ID, 600, 1000, t0)
		if err != nil || from != 0 || to != 600 {
			t.Fatalf("charge 600: %d %d %v", from, to, err)
		}
		_, _, err = charge(db, w.ID, 401, 1000, t0)
		wantErr(t, "over quota", err, store.ErrQuotaExceeded)
		if c := count(); c != 600 {
			t.Fatalf("count after refused charge = %d", c)
		}
		from, to, err = charge(db, w.ID, 400, 1000, t0)
		if err != nil || from != 600 || to != 1000 {
			t.Fatalf("charge to the limit: %d %d %v", from, to, err)
		}
		_, _, err = charge(db, w.ID, 1, 1000, t0)
		wantErr(t, "at limit", err, store.ErrQuotaExceeded)
		from, to, err = charge(db, w.ID, 5000, -1, t0)
		if err != nil || from != 1000 || to != 6000 {
			t.Fatalf("unlimited: %d %d %v", from, to, err)
		}
		// Limits past 32 bits work on both databases.
		from, to, err = charge(db, w.ID, 3_000_000_000, 5_000_000_000, t0)
		if err != nil || from != 6000 || to != 3_000_006_000 {
			t.Fatalf("big limit: %d %d %v", from, to, err)
		}
		must(t, "refund", db.InTx(ctx, func(tx *store.Tx) error { return tx.Refund(ctx, w.ID, 3_000_000_000) }))
		if c := count(); c != 6000 {
			t.Fatalf("after refund = %d", c)
		}
		must(t, "refund too much", db.InTx(ctx, func(tx *store.Tx) error { return tx.Refund(ctx, w.ID, 1_000_000) }))
		if c := count(); c != 0 {
			t.Fatalf("after over-refund = %d", c)
		}
		_, _, err = charge(db, "nope", 1, 10, t0)
		wantErr(t, "unknown workspace", err, store.ErrNotFound)

		// A charge whose transaction fails later is rolled back with it (with its history row).
		boom := errors.New("synthesis failed")
		h := hist(w, u, 1)
		err = db.InTx(ctx, func(tx *store.Tx) error {
			if _, _, err := tx.Charge(ctx, w.ID, 10, 100, t0); err != nil {
				return err
			}
			if err := tx.InsertHistory(ctx, h); err != nil {
				return err
			}
			return boom
		})
		wantErr(t, "rolled back", err, boom)
		if c := count(); c != 0 {
			t.Fatalf("rolled back charge kept: %d", c)
		}
		_, err = db.History(ctx, w.ID, h.ID)
		wantErr(t, "rolled back history", err, store.ErrNotFound)
	})
}

func TestConcurrentCharges(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "race@example.com")
		const workers, per, fit = 50, 100, 7
		limit := int64(fit*per + per/2) // room for 7.5 charges: exactly 7 fit
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, refused := 0, 0
		var other []error
		start := make(chan struct{})
		for i := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				h := hist(w, u, i)
				err := db.InTx(ctx, func(tx *store.Tx) error {
					from, to, err := tx.Charge(ctx, w.ID, per, limit, t0)
					if err != nil {
						return err
					}
					h.CharFrom, h.CharTo = from, to
					return tx.InsertHistory(ctx, h)
				})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case errors.Is(err, store.ErrQuotaExceeded):
					refused++
				default:
					other = append(other, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(other) > 0 {
			t.Fatalf("unexpected errors: %v", other)
		}
		if ok != fit || refused != workers-fit {
			t.Fatalf("succeeded %d, refused %d; want %d and %d", ok, refused, fit, workers-fit)
		}
		ws, _ := db.Workspace(ctx, w.ID, t0)
		if ws.CharacterCount != fit*per {
			t.Fatalf("count = %d, want %d", ws.CharacterCount, fit*per)
		}
		items, _, err := db.ListHistory(ctx, w.ID, store.HistoryFilter{PageSize: 100})
		must(t, "ListHistory", err)
		if len(items) != fit {
			t.Fatalf("history rows = %d, want %d", len(items), fit)
		}
		// The charged ranges tile [0, 700) exactly.
		seen := map[int64]bool{}
		for _, h := range items {
			if h.CharTo-h.CharFrom != per || h.CharFrom%per != 0 || seen[h.CharFrom] {
				t.Fatalf("bad range %d..%d", h.CharFrom, h.CharTo)
			}
			seen[h.CharFrom] = true
		}
		if n := rawCount(t, db, `SELECT COUNT(*) AS n FROM history WHERE workspace_id = ?`, w.ID); n != fit {
			t.Fatalf("raw history rows = %d", n)
		}
	})
}

func TestSecretsStoredHashed(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "secret@example.com")
		session, apiKey, code := "sess_"+store.RandomString(43), "sk_"+store.RandomString(48), store.RandomString(32)
		must(t, "session", db.CreateSession(ctx, session, store.Session{UserID: u.ID, WorkspaceID: w.ID, CSRFToken: "csrf", ExpiresAt: t0.Add(time.Hour).Unix()}, t0))
		must(t, "api key", db.CreateAPIKey(ctx, store.APIKey{ID: store.NewID(), WorkspaceID: w.ID, UserID: u.ID, Name: "k", Preview: apiKey[:6] + "…" + apiKey[len(apiKey)-4:], CreatedAt: t0.Unix()}, apiKey))
		must(t, "code", db.CreateActionCode(ctx, code, u.ID, store.CodeVerifyEmail, t0.Add(time.Hour)))

		check := func(table, hashCol, secret string) {
			t.Helper()
			rows := rawRows(t, db, `SELECT * FROM `+table)
			if len(rows) != 1 {
				t.Fatalf("%s has %d rows", table, len(rows))
			}
			for col, val := range rows[0] {
				if strings.Contains(val, secret) {
					t.Fatalf("%s.%s holds the plaintext secret", table, col)
				}
			}
			if rows[0][hashCol] != store.HashToken(secret) {
				t.Fatalf("%s.%s = %q, want the token's hash", table, hashCol, rows[0][hashCol])
			}
		}
		check("sessions", "token_hash", session)
		check("api_keys", "key_hash", apiKey)
		check("action_codes", "code_hash", code)
		// And the hash is what looks the secret up.
		if _, err := db.SessionByToken(ctx, store.HashToken(session), t0); !errors.Is(err, store.ErrNotFound) {
			t.Fatal("a session is found by its hash")
		}
	})
}

func TestMail(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		must(t, "AddMail 1", db.AddMail(ctx, store.Mail{ID: "m1", To: "a@example.com", Subject: "one", Text: "t1", HTML: "<p>1</p>", CreatedAt: 100}))
		must(t, "AddMail 2", db.AddMail(ctx, store.Mail{ID: "m2", To: "b@example.com", Subject: "two", Text: "t2", HTML: "<p>2</p>", CreatedAt: 200}))
		must(t, "AddMail defaults", db.AddMail(ctx, store.Mail{To: "c@example.com", Subject: "three", Text: "t3", HTML: "<p>3</p>"}))
		all, err := db.ListMail(ctx, 10)
		must(t, "ListMail", err)
		if len(all) != 3 || all[0].Subject != "three" || all[0].ID == "" || all[0].CreatedAt < time.Now().Add(-time.Minute).Unix() {
			t.Fatalf("ListMail = %+v", all)
		}
		want := store.Mail{ID: "m2", To: "b@example.com", Subject: "two", Text: "t2", HTML: "<p>2</p>", CreatedAt: 200}
		if all[1] != want || all[2].ID != "m1" {
			t.Fatalf("ListMail order/content = %+v", all)
		}
		two, _ := db.ListMail(ctx, 2)
		if len(two) != 2 || two[1].ID != "m2" {
			t.Fatalf("ListMail(2) = %+v", two)
		}
	})
}

// Interface checks that would fail to compile if the store's shape drifted from what the suite
// (and the rest of the code) relies on.
var (
	_ = (*store.DB).InTx
	_ *sql.DB
)
