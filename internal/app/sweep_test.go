package app_test

// The security proofs over every registered route: the tenant sweep (workspace B's
// credentials on workspace A's resources are refused, and nothing of A changes) and the role sweep
// (an editor is refused every admin action; a key without a permission is refused the routes
// that need it). The table of cases is sweep_cases_test.go.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"timbre/internal/access"
	"timbre/internal/account"
	"timbre/internal/apikey"
	"timbre/internal/httpx"
	"timbre/internal/store"
	"timbre/internal/voice"
	"timbre/internal/workspace"
)

// alphaFx is workspace A: the target of the sweeps.
type alphaFx struct {
	ws                        string
	admin, editor             *store.User
	adminKey, editorKey       string // secrets
	adminKeyID, editorKeyID   string
	adminSession, adminCSRF   string
	adminSessionID            string // public id
	editorSession, editorCSRF string
	historyID, voiceID        string
	sampleID                  string // a sample of A's voice
	transcriptID              string
	isolationID               string
	soundID                   string // a sound effect of A's
	songID                    string
	previewID                 string // a voice design preview of A's
	dictionaryID, dictVersion string // a pronunciation dictionary of A's and its first version
	collectionID              string // a voice collection of A's, holding A's voice
	groupID, groupName        string
	inviteEmail, inviteCode   string
	webhookID, webhookName    string
	providerID, providerName  string
	domain                    string
	saID, saName, saKeyID     string
	shareToken                string
	// B's own resources, for calls that pair one of B's with one of A's (B's voice shared with
	// A's group, A's key under B's service account).
	betaVoiceID, betaSAID  string
	historyText, voiceName string
	keyPreviews            []string
	messageID              string // a notification of A's admin
}

// betaFx is workspace B: the caller of the tenant sweep.
type betaFx struct {
	user          *store.User
	key           string
	session, csrf string
}

// cred is how a sweep call authenticates.
type cred struct {
	name          string // "key" or "session"
	key           string
	session, csrf string
}

func (c cred) headers() []string {
	if c.key != "" {
		return nil
	}
	return []string{"Cookie", "xi_website_session=" + c.session, "X-CSRF-Token", c.csrf}
}

// pathValues fills a route's {wildcards} with A's identifiers.
func (a *alphaFx) pathValues() map[string]string {
	return map[string]string{
		"history_item_id":             a.historyID,
		"voice_id":                    a.voiceID,
		"sample_id":                   a.sampleID,
		"group_id":                    a.groupID,
		"webhook_id":                  a.webhookID,
		"provider_id":                 a.providerID,
		"service_account_user_id":     a.saID,
		"api_key_id":                  a.saKeyID,
		"user_id":                     a.editor.ID,
		"resource_id":                 a.historyID,
		"session_id":                  a.adminSessionID,
		"code":                        a.inviteCode,
		"token":                       a.shareToken,
		"transcription_id":            a.transcriptID,
		"token_type":                  "batch_scribe",
		"generated_voice_id":          a.previewID,
		"collection_id":               a.collectionID,
		"speaker_id":                  "speaker_0",
		"public_user_id":              voice.PublicOwnerID(a.ws),
		"pronunciation_dictionary_id": a.dictionaryID,
		"dictionary_id":               a.dictionaryID,
		"version_id":                  a.dictVersion,
	}
}

// markers are strings that identify A: none may appear in a response to B (unless B's own request
// carried it) or in a row that B's calls add or change.
func (a *alphaFx) markers() []string {
	m := []string{a.ws, a.admin.ID, a.editor.ID, a.admin.Email, a.editor.Email, a.historyID, a.voiceID, a.groupID, a.groupName,
		a.inviteEmail, a.webhookID, a.webhookName, a.providerID, a.providerName, a.domain, a.saID, a.saName, a.saKeyID,
		a.adminKeyID, a.editorKeyID, a.adminSessionID, a.shareToken, a.historyText, a.voiceName, a.transcriptID, a.isolationID, a.soundID, a.songID, a.previewID,
		a.dictionaryID, a.dictVersion, "Alpha lexicon"}
	return append(m, a.keyPreviews...)
}

// rowMarkers are the identifiers that tie a database row to A (ids and emails: names may repeat
// across workspaces).
func (a *alphaFx) rowMarkers() []string {
	return []string{a.ws, a.admin.ID, a.editor.ID, a.admin.Email, a.editor.Email, a.historyID, a.voiceID, a.groupID, a.inviteEmail,
		a.webhookID, a.providerID, a.domain, a.saID, a.saKeyID, a.adminKeyID, a.editorKeyID, a.adminSessionID, a.shareToken, a.transcriptID, a.isolationID, a.soundID, a.songID, a.previewID, a.dictionaryID, a.dictVersion}
}

// call sends one request of a sweep.
func (e *env) sweepCall(method, path string, body any, c cred) *resp {
	e.t.Helper()
	return e.do(method, path, c.key, body, c.headers()...)
}

// openSession opens a web session for u in workspace ws.
func (e *env) openSession(u *store.User, ws string) (token, csrf string) {
	e.t.Helper()
	uc := *u
	uc.WorkspaceID = ws
	token, csrf, err := e.app.Auth.OpenSession(context.Background(), &uc)
	if err != nil {
		e.t.Fatal(err)
	}
	return token, csrf
}

// mustOK fails unless the response is a 2xx, and returns its JSON object.
func mustOK(t *testing.T, r *resp) map[string]any {
	t.Helper()
	if r.StatusCode/100 != 2 {
		t.Fatalf("%s %s: status %d: %.500s", r.Request.Method, r.Request.URL.Path, r.StatusCode, r.body)
	}
	if len(r.body) == 0 || r.body[0] != '{' {
		return nil
	}
	return r.json(t)
}

// setupAlpha builds workspace A through the API where it can (the store where the API has no
// route): an admin and an editor with a key and a session each, a history item shared with a
// group, a voice of its own and a voice setting, a group, an invite, a webhook, a service account
// with a key and an SSO provider.
func setupAlpha(e *env) *alphaFx {
	t := e.t
	t.Helper()
	ctx := context.Background()
	db := e.app.DB
	now := time.Now()
	a := &alphaFx{ws: e.user.WorkspaceID, admin: e.user, adminKey: e.key,
		groupName: "alpha-group-q7", inviteEmail: "alpha-invitee@alpha-corp.example", webhookName: "alpha-hook-q7",
		providerName: "alpha-idp-q7", domain: "alpha-corp.example", saName: "alpha-robot-q7",
		historyText: "Alpha secret words q7.", voiceName: "Alpha private voice q7"}
	if err := db.SetTier(ctx, a.ws, "enterprise"); err != nil {
		t.Fatal(err)
	}
	keys, err := db.ListAPIKeys(ctx, a.ws)
	if err != nil || len(keys) != 1 {
		t.Fatalf("admin keys: %v %d", err, len(keys))
	}
	a.adminKeyID = keys[0].ID

	// The editor: a user of their own who accepts an invite to A.
	ed, err := e.app.Auth.CreateVerifiedUser(ctx, "alpha-editor@alpha-corp.example", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	a.editor = ed
	code := store.RandomString(32)
	if err := db.CreateInvites(ctx, a.ws, []store.NewInvite{{Code: code, Invite: store.Invite{WorkspaceID: a.ws, Email: ed.Email,
		Role: access.RoleEditor, InvitedBy: a.admin.ID, CreatedAt: now.Unix(), ExpiresAt: now.Add(time.Hour).Unix()}}}, workspace.Seats, now); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AcceptInvite(ctx, code, ed.ID, "", workspace.Seats, now, func(*store.Invite) error { return nil }); err != nil {
		t.Fatal(err)
	}
	k, secret, err := apikey.Create(ctx, db, nil, apikey.NewKey{WorkspaceID: a.ws, UserID: ed.ID, Name: "alpha editor key", Permissions: []string{apikey.All}}, now)
	if err != nil {
		t.Fatal(err)
	}
	a.editorKey, a.editorKeyID = secret, k.ID
	a.adminSession, a.adminCSRF = e.openSession(a.admin, a.ws)
	a.editorSession, a.editorCSRF = e.openSession(ed, a.ws)
	sessions, err := db.ListSessions(ctx, a.admin.ID, now)
	if err != nil || len(sessions) != 1 {
		t.Fatalf("admin sessions: %v %d", err, len(sessions))
	}
	a.adminSessionID = sessions[0].PublicID
	if role, err := db.Role(ctx, a.ws, ed.ID); err != nil || role != access.RoleEditor {
		t.Fatalf("editor role in A: %q %v", role, err)
	}

	// A pending invite with a known code.
	a.inviteCode = store.RandomString(32)
	if err := db.CreateInvites(ctx, a.ws, []store.NewInvite{{Code: a.inviteCode, Invite: store.Invite{WorkspaceID: a.ws, Email: a.inviteEmail,
		Role: access.RoleEditor, InvitedBy: a.admin.ID, CreatedAt: now.Unix(), ExpiresAt: now.Add(time.Hour).Unix()}}}, workspace.Seats, now); err != nil {
		t.Fatal(err)
	}

	// A voice of A's own (no route creates one yet): a copy of a premade voice.
	a.voiceID = "alphaVoiceQ7" + store.RandomString(8)
	rawExec(t, db, `INSERT INTO voices (id, workspace_id, name, category, description, labels, engine, engine_voice, language, prosody, created_at_unix)
		SELECT ?, ?, ?, 'cloned', '', labels, engine, engine_voice, language, prosody, created_at_unix FROM voices WHERE id = ?`,
		a.voiceID, a.ws, a.voiceName, sarah)
	a.sampleID = "alphaSampleQ7" + store.RandomString(8)
	rawExec(t, db, `INSERT INTO voice_samples (sample_id, voice_id, workspace_id, file_name, mime_type, size_bytes, hash, duration_secs, blob_key, voiceprint, created_at_unix)
		VALUES (?, ?, ?, 'alpha.wav', 'audio/wav', 4, 'ab', 1.5, ?, '{}', ?)`, a.sampleID, a.voiceID, a.ws, "voice-samples/"+a.ws+"/"+a.sampleID, now.Unix())

	key := a.adminKey
	mustOK(t, e.do("POST", "/v1/voices/"+a.voiceID+"/settings/edit", key, map[string]any{"stability": 0.31, "similarity_boost": 0.62}))
	mustOK(t, e.do("POST", "/v1/voices/"+rachel+"/settings/edit", key, map[string]any{"stability": 0.29, "similarity_boost": 0.58}))
	r := e.do("POST", "/v1/text-to-speech/"+a.voiceID, key, map[string]any{"text": a.historyText})
	mustOK(t, r)
	a.historyID = r.Header.Get("history-item-id")
	if a.historyID == "" {
		t.Fatal("no history-item-id header")
	}
	// A finished transcript of A's (made directly: transcribing takes a recogniser's time).
	a.transcriptID = "alphaTranscriptQ7" + store.RandomString(6)
	rawExec(t, db, `INSERT INTO transcripts (id, workspace_id, user_id, api_key_id, model_id, language_code, file_name, state, duration_secs,
		result, error, webhook_metadata, created_at_unix, completed_at_unix, preview) VALUES (?, ?, ?, '', 'scribe_v1', 'eng', 'alpha.mp3', 'completed', 1.5,
		?, '', '', 1700000000, 1700000001, 'Alpha''s secret words.')`, a.transcriptID, a.ws, a.admin.ID,
		`{"language_code":"eng","language_probability":1,"text":"Alpha's secret words.","words":[],"transcription_id":"`+a.transcriptID+`","audio_duration_secs":1.5}`)
	// And an isolation of A's (its audio is not needed: B must not reach the row at all).
	a.isolationID = "alphaIsolationK3" + store.RandomString(6)
	rawExec(t, db, `INSERT INTO audio_isolations (id, workspace_id, user_id, api_key_id, title, format, duration_secs, blob_key,
		preview_b64, created_at_unix) VALUES (?, ?, ?, '', 'alpha podcast', 'mp3_44100_128', 2.5, ?, '', 1700000000)`,
		a.isolationID, a.ws, a.admin.ID, "isolation/"+a.ws+"/"+a.isolationID+".mp3")
	// And a sound effect of A's.
	a.soundID = "alphaSoundK3" + store.RandomString(6)
	rawExec(t, db, `INSERT INTO sound_generations (id, workspace_id, user_id, api_key_id, text, settings, format, duration_secs, blob_key,
		created_at_unix) VALUES (?, ?, ?, '', 'alpha thunder', '{}', 'mp3_44100_128', 2.5, ?, 1700000000)`,
		a.soundID, a.ws, a.admin.ID, "sfx/"+a.ws+"/"+a.soundID+".mp3")
	// And a song of A's (B must neither list, download nor delete it).
	a.songID = "alphaSongK3" + store.RandomString(6)
	rawExec(t, db, `INSERT INTO music_songs (id, workspace_id, user_id, api_key_id, title, prompt, plan_json, seed, engine, format,
		duration_ms, credits, blob_key, created_at_unix) VALUES (?, ?, ?, '', 'alpha song', 'alpha jazz', '{}', 1, 'fluidsynth',
		'mp3_44100_128', 3000, 50, ?, 1700000000)`, a.songID, a.ws, a.admin.ID, "music/"+a.ws+"/"+a.songID+".mp3")
	// And a voice collection of A's holding A's voice (B must neither read, change nor fill it).
	col := mustOK(t, e.do("POST", "/v1/voices/collections", key, map[string]any{"title": "Alpha's picks", "icon": "🎙"}))
	a.collectionID = col["collection_id"].(string)
	mustOK(t, e.do("POST", "/v1/voices/collections/"+a.collectionID+"/voice/"+a.voiceID, key, nil))
	// And a pronunciation dictionary of A's (B must neither read, download, change nor speak with it).
	dict := mustOK(t, e.do("POST", "/v1/pronunciation-dictionaries/add-from-rules", key, map[string]any{"name": "Alpha lexicon",
		"rules": []any{map[string]any{"type": "alias", "string_to_replace": "Alpha", "alias": "Alpha Corp"}}}))
	a.dictionaryID, a.dictVersion = dict["id"].(string), dict["version_id"].(string)
	// And a voice design preview of A's (B must neither stream nor save it).
	a.previewID = "alphaPreviewK3" + store.RandomString(6)
	rawExec(t, db, `INSERT INTO voice_previews (id, workspace_id, user_id, source_voice_id, description, params, text, language,
		created_at_unix, expires_at_unix) VALUES (?, ?, ?, '', 'a calm young American woman', ?, 'Alpha''s preview words.', 'en', 1700000000, 4000000000)`,
		a.previewID, a.ws, a.admin.ID, `{"engine":"flite","engine_voice":"slt","f0_hz":200,"formant":1,"rate":1,"pitch_range":50,"pitch":50,"language":"en"}`)
	link := mustOK(t, e.do("GET", "/v1/history/"+a.historyID+"/share-link", key, nil))
	su, _ := link["share_link"].(string)
	a.shareToken = su[strings.LastIndex(su, "/")+1:]

	g := mustOK(t, e.do("POST", "/api/workspace/groups", key, map[string]any{"name": a.groupName, "permissions": []string{"text_to_speech", "create_user_api_key"}}))
	a.groupID = g["id"].(string)
	mustOK(t, e.do("POST", "/v1/workspace/groups/"+a.groupID+"/members", key, map[string]any{"email": ed.Email}))
	mustOK(t, e.do("POST", "/v1/workspace/resources/"+a.historyID+"/share", key, map[string]any{"role": "viewer", "resource_type": "history", "group_id": a.groupID}))

	wh := mustOK(t, e.do("POST", "/v1/workspace/webhooks", key, map[string]any{"settings": map[string]any{
		"auth_type": "hmac", "name": a.webhookName, "webhook_url": "https://93.184.215.14/alpha-hook"}}))
	a.webhookID = wh["webhook_id"].(string)

	sa := mustOK(t, e.do("POST", "/v1/service-accounts", key, map[string]any{"name": a.saName}))
	a.saID = sa["service-account-user-id"].(string)
	sak := mustOK(t, e.do("POST", "/v1/service-accounts/"+a.saID+"/api-keys", key, map[string]any{"name": "alpha robot key", "permissions": []string{"text_to_speech"}}))
	a.saKeyID = sak["key_id"].(string)

	p := mustOK(t, e.do("POST", "/api/workspace/sso/providers", key, map[string]any{"type": "oidc", "name": a.providerName,
		"domains": []string{a.domain}, "issuer": "https://idp.alpha-corp.example", "client_id": "alpha-client", "client_secret": "alpha-client-secret"}))
	a.providerID = p["provider_id"].(string)
	if err := db.VerifySSODomain(ctx, a.ws, a.domain, a.admin.ID, time.Now()); err != nil { // as if A published its TXT record
		t.Fatal(err)
	}

	all, err := db.ListAPIKeys(ctx, a.ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range all {
		a.keyPreviews = append(a.keyPreviews, k.Preview)
	}
	sak2, err := db.ListServiceAccountAPIKeys(ctx, a.ws, a.saID)
	if err != nil || len(sak2) != 1 {
		t.Fatalf("service account keys: %v %d", err, len(sak2))
	}
	a.keyPreviews = append(a.keyPreviews, sak2[0].Preview)
	if a.messageID, err = (&account.Service{DB: db}).Notify(ctx, a.admin.ID, "warning", "Alpha notice q7", "", true); err != nil {
		t.Fatal(err)
	}
	return a
}

// newTenant is a fresh workspace with an admin, an API key with "all" and a web session.
func (e *env) newTenant(email string) *betaFx {
	e.t.Helper()
	u, key := e.newUser(email)
	if err := e.app.DB.SetTier(context.Background(), u.WorkspaceID, "enterprise"); err != nil {
		e.t.Fatal(err)
	}
	b := &betaFx{user: u, key: key}
	b.session, b.csrf = e.openSession(u, u.WorkspaceID)
	return b
}

// ---- raw database access ---------------------------------------------------------------------

// rawExec runs a statement written with ? placeholders on the raw handle of either database.
func rawExec(t *testing.T, db *store.DB, q string, args ...any) {
	t.Helper()
	ctx := context.Background()
	var err error
	if db.PG != nil {
		_, err = db.PG.Exec(ctx, pgRebind(q), args...)
	} else {
		_, err = db.SQLiteDB.ExecContext(ctx, q, args...)
	}
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func pgRebind(q string) string {
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// rawRows returns every row of a query as its columns' names and text values.
func rawRows(t *testing.T, db *store.DB, q string) ([]string, [][]string) {
	t.Helper()
	ctx := context.Background()
	text := func(v any) string {
		switch x := v.(type) {
		case nil:
			return "NULL"
		case []byte:
			return string(x)
		default:
			return fmt.Sprint(x)
		}
	}
	var cols []string
	var out [][]string
	if db.PG != nil {
		rows, err := db.PG.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		for _, f := range rows.FieldDescriptions() {
			cols = append(cols, f.Name)
		}
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			row := make([]string, len(vals))
			for i, v := range vals {
				row[i] = text(v)
			}
			out = append(out, row)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return cols, out
	}
	rows, err := db.SQLiteDB.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err = rows.Columns()
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
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = text(v)
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, out
}

// dataTables lists the tables that hold tenant data: all of the store's (not the job queue's or
// the migration tool's).
func dataTables(t *testing.T, db *store.DB) []string {
	t.Helper()
	q := `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
	if db.PG != nil {
		q = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
	}
	_, rows := rawRows(t, db, q)
	var out []string
	for _, r := range rows {
		if strings.HasPrefix(r[0], "river_") || r[0] == "goose_db_version" {
			continue
		}
		out = append(out, r[0])
	}
	sort.Strings(out)
	return out
}

// snapshot is, per table, the sorted rows that mention any of markers (A's ids and emails), each
// as "col=value" pairs; columns in ignore are left out (last-used times the sweep's own calls
// move).
type snapshot map[string][]string

func takeSnapshot(t *testing.T, db *store.DB, markers []string, ignore ...string) snapshot {
	t.Helper()
	s := snapshot{}
	for _, table := range dataTables(t, db) {
		cols, rows := rawRows(t, db, `SELECT * FROM `+table)
		for _, row := range rows {
			mentions := false
			var parts []string
			for i, v := range row {
				if slices.Contains(ignore, cols[i]) {
					continue
				}
				for _, m := range markers {
					if m != "" && strings.Contains(v, m) {
						mentions = true
					}
				}
				parts = append(parts, cols[i]+"="+v)
			}
			if mentions {
				s[table] = append(s[table], strings.Join(parts, " | "))
			}
		}
		sort.Strings(s[table])
	}
	return s
}

func (s snapshot) rows() int {
	n := 0
	for _, r := range s {
		n += len(r)
	}
	return n
}

// diff describes how after differs from s.
func (s snapshot) diff(after snapshot) []string {
	var out []string
	tables := map[string]bool{}
	for k := range s {
		tables[k] = true
	}
	for k := range after {
		tables[k] = true
	}
	for table := range tables {
		for _, r := range s[table] {
			if !slices.Contains(after[table], r) {
				out = append(out, table+": gone or changed: "+r)
			}
		}
		for _, r := range after[table] {
			if !slices.Contains(s[table], r) {
				out = append(out, table+": new or changed: "+r)
			}
		}
	}
	sort.Strings(out)
	return out
}

// errorStatus is detail.status of an application error ("" for anything else).
func errorStatus(r *resp) string {
	var m struct {
		Detail struct {
			Status string `json:"status"`
		} `json:"detail"`
	}
	_ = json.Unmarshal(r.body, &m)
	return m.Detail.Status
}

// ---- the sweeps ------------------------------------------------------------------------------

// fillPath puts A's identifiers (or the case's own) into a route's pattern.
func fillPath(pattern string, vals map[string]string) (method, path string) {
	method, path, _ = strings.Cut(pattern, " ")
	for k, v := range vals {
		path = strings.ReplaceAll(path, "{"+k+"}", url.PathEscape(v))
	}
	return method, path
}

// leaked returns the markers a response mentions that its request did not carry.
func leaked(r *resp, sent string, markers []string) []string {
	var out []string
	body := string(r.body)
	for _, m := range markers {
		if m != "" && strings.Contains(body, m) && !strings.Contains(sent, m) {
			out = append(out, m)
		}
	}
	return out
}

// request is one call a case makes: its path (with query) and body.
type request struct {
	method, path string
	body         any
}

func (c sweepCase) request(pattern string, a *alphaFx) request {
	vals := a.pathValues()
	for k, v := range c.pathVals {
		vals[k] = v
	}
	if c.pathFn != nil {
		for k, v := range c.pathFn(a) {
			vals[k] = v
		}
	}
	method, path := fillPath(pattern, vals)
	if c.query != nil {
		path += "?" + c.query(a).Encode()
	}
	var body any
	if c.body != nil {
		body = c.body(a)
	}
	return request{method, path, body}
}

func (q request) sent() string { return fmt.Sprintf("%s %v", q.path, q.body) }

func TestTenantSweep(t *testing.T) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		t.Run(string(d), func(t *testing.T) { tenantSweep(t, d) })
	}
}

func tenantSweep(t *testing.T, dialect store.Dialect) {
	e := newEnv(t, dialect)
	a := setupAlpha(e)
	b := e.newTenant("beta-admin@beta-corp.example")
	a.betaVoiceID = "betaVoiceQ7" + store.RandomString(8)
	rawExec(t, e.app.DB, `INSERT INTO voices (id, workspace_id, name, category, description, labels, engine, engine_voice, language, prosody, created_at_unix)
		SELECT ?, ?, 'Beta voice', 'cloned', '', labels, engine, engine_voice, language, prosody, created_at_unix FROM voices WHERE id = ?`,
		a.betaVoiceID, b.user.WorkspaceID, sarah)
	sa := mustOK(t, e.do("POST", "/v1/service-accounts", b.key, map[string]any{"name": "beta robot"}))
	a.betaSAID = sa["service-account-user-id"].(string)
	cases := tenantCases()
	routes := e.app.Routes()
	checkComplete(t, routes, cases)

	before := takeSnapshot(t, e.app.DB, a.rowMarkers())
	if before.rows() < 20 {
		t.Fatalf("snapshot of A has only %d rows: the fixture is incomplete", before.rows())
	}
	markers := a.markers()
	var calls, refused, own, public int
	fresh := 0
	for _, rt := range routes {
		c := cases[rt.Pattern]
		if c.public != "" {
			public++
			continue
		}
		for _, c := range append([]sweepCase{c}, c.also...) {
			q := c.request(rt.Pattern, a)
			creds := []cred{{name: "key", key: b.key}, {name: "session", session: b.session, csrf: b.csrf}}
			for _, cr := range creds {
				if c.fresh {
					// The call would end B's own key, session or account: a throwaway tenant makes it.
					fresh++
					f := e.newTenant(fmt.Sprintf("throwaway-%d@beta-corp.example", fresh))
					if cr.name == "key" {
						cr = cred{name: "key", key: f.key}
					} else {
						cr = cred{name: "session", session: f.session, csrf: f.csrf}
					}
				}
				r := e.sweepCall(q.method, q.path, q.body, cr)
				calls++
				where := fmt.Sprintf("%s with B's %s (%s %s)", rt.Pattern, cr.name, q.method, q.path)
				if os.Getenv("TIMBRE_SWEEP_TRACE") != "" {
					t.Logf("%d %s: %.160s", r.StatusCode, where, r.body)
				}
				if s := errorStatus(r); s == "csrf_failed" || s == "invalid_api_key" || s == "mfa_enrollment_required" {
					// B's credentials themselves were refused: the call proved nothing.
					t.Errorf("%s: B's credentials were refused (%s): %.300s", where, s, r.body)
					continue
				}
				if r.StatusCode >= 500 {
					t.Errorf("%s: status %d: %.300s", where, r.StatusCode, r.body)
					continue
				}
				if l := leaked(r, q.sent(), markers); len(l) > 0 {
					t.Errorf("LEAK %s: status %d, the response names A's %q: %.400s", where, r.StatusCode, l, r.body)
				}
				if c.own != "" {
					if r.StatusCode/100 == 2 {
						own++
					} else {
						refused++
					}
					continue
				}
				want := c.want
				if cr.name == "key" && c.keyWant != nil {
					want = c.keyWant
				}
				if cr.name == "session" && c.sessionWant != nil {
					want = c.sessionWant
				}
				if want == nil {
					want = []int{http.StatusForbidden, http.StatusNotFound}
				}
				if !slices.Contains(want, r.StatusCode) {
					t.Errorf("LEAK? %s: status %d, want one of %v: %.400s", where, r.StatusCode, want, r.body)
					continue
				}
				refused++
			}
		}
	}
	after := takeSnapshot(t, e.app.DB, a.rowMarkers())
	for _, d := range before.diff(after) {
		t.Errorf("A's data changed during the sweep: %s", d)
	}
	t.Logf("tenant sweep (%s): %d routes (%d public, not called), %d calls with B's credentials on A's resources: %d refused, %d served from B's own workspace; A's %d rows in %d tables unchanged",
		dialect, len(routes), public, calls, refused, own, before.rows(), len(before))
}

// checkComplete fails when a registered route has no case, or a case names no route.
func checkComplete(t *testing.T, routes []httpx.Route, cases map[string]sweepCase) {
	t.Helper()
	seen := map[string]bool{}
	for _, rt := range routes {
		seen[rt.Pattern] = true
		c, ok := cases[rt.Pattern]
		if !ok {
			t.Errorf("route %q has no entry in the sweep table (internal/app/sweep_cases_test.go): add one saying how to call it on A's resources and what B must get", rt.Pattern)
			continue
		}
		if c.public != "" && rt.Authed {
			t.Errorf("route %q is marked public in the sweep table but needs authentication", rt.Pattern)
		}
		if c.public == "" && !rt.Authed {
			t.Errorf("route %q is public but its sweep entry does not say why (set public)", rt.Pattern)
		}
	}
	for p := range cases {
		if !seen[p] {
			t.Errorf("the sweep table has an entry for %q, which is not registered", p)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// handlerAdminRoutes are admin-only routes whose handler checks the role (for the spec's own
// message, or because the right comes from the resource) instead of the router. A's editor sees
// A's history item only through a viewer grant, so sharing it is refused.
var handlerAdminRoutes = []string{"PUT /v1/workspace/update-workspace",
	"POST /v1/workspace/resources/{resource_id}/share", "POST /v1/workspace/resources/{resource_id}/unshare"}

func TestRoleSweep(t *testing.T) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		t.Run(string(d), func(t *testing.T) { roleSweep(t, d) })
	}
}

func roleSweep(t *testing.T, dialect store.Dialect) {
	e := newEnv(t, dialect)
	ctx := context.Background()
	a := setupAlpha(e)
	cases := tenantCases()
	routes := e.app.Routes()
	checkComplete(t, routes, cases)
	// The sweep's own calls move last-used times; nothing else may change.
	ignore := []string{"last_used_unix", "last_seen_unix"}
	before := takeSnapshot(t, e.app.DB, a.rowMarkers(), ignore...)

	// 1. The editor is refused every admin action, with a valid body, on A's own resources.
	var adminRoutes, adminCalls int
	editor := []cred{{name: "session", session: a.editorSession, csrf: a.editorCSRF}, {name: "key", key: a.editorKey}}
	for _, rt := range routes {
		if !rt.AdminOnly && !slices.Contains(handlerAdminRoutes, rt.Pattern) {
			continue
		}
		adminRoutes++
		q := cases[rt.Pattern].request(rt.Pattern, a)
		for _, cr := range editor {
			r := e.sweepCall(q.method, q.path, q.body, cr)
			adminCalls++
			if r.StatusCode != http.StatusForbidden {
				t.Errorf("%s by A's editor (%s): status %d, want 403: %.300s", rt.Pattern, cr.name, r.StatusCode, r.body)
			} else if s := detailStatus(t, r); s != "forbidden" {
				t.Errorf("%s by A's editor (%s): detail.status %q, want forbidden", rt.Pattern, cr.name, s)
			}
		}
	}
	// Admin rights checked in handlers on routes editors may call: another member's key.
	for _, q := range []request{
		{"POST", "/v1/user/edit-api-key", map[string]any{"key_id": a.adminKeyID, "name": "taken by the editor"}},
		{"DELETE", "/v1/user/delete-api-key?key_id=" + a.adminKeyID, nil},
	} {
		for _, cr := range editor {
			r := e.sweepCall(q.method, q.path, q.body, cr)
			adminCalls++
			if r.StatusCode != http.StatusForbidden || errorStatus(r) != "forbidden" {
				t.Errorf("%s %s (the admin's key) by A's editor (%s): status %d, want 403 forbidden: %.300s", q.method, q.path, cr.name, r.StatusCode, r.body)
			}
		}
	}
	if adminRoutes < 30 {
		t.Errorf("only %d admin routes: the router lost its AdminOnly marks?", adminRoutes)
	}

	// 2. A key with every permission but one is refused each route that needs that one.
	keys := map[string]string{}
	var permRoutes, permCalls int
	for _, rt := range routes {
		p := rt.Permission
		if p == "" {
			continue
		}
		if !slices.Contains(apikey.Permissions, p) {
			t.Errorf("%s needs %q, which is not one of the API's permissions", rt.Pattern, p)
			continue
		}
		key, ok := keys[p]
		if !ok {
			perms := slices.DeleteFunc(slices.Clone(apikey.Permissions), func(x string) bool { return x == p })
			_, secret, err := apikey.Create(ctx, e.app.DB, nil, apikey.NewKey{WorkspaceID: a.ws, UserID: a.admin.ID, Name: "all but " + p, Permissions: perms}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			keys[p], key = secret, secret
			// The key works otherwise: it reads the user (a route that needs no permission).
			expect(t, e.do("GET", "/v1/user", key, nil), http.StatusOK)
		}
		permRoutes++
		q := cases[rt.Pattern].request(rt.Pattern, a)
		r := e.sweepCall(q.method, q.path, q.body, cred{name: "key", key: key})
		permCalls++
		if r.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s with a key lacking %s: status %d, want 401: %.300s", rt.Pattern, p, r.StatusCode, r.body)
		} else if s := detailStatus(t, r); s != "missing_permissions" {
			t.Errorf("%s with a key lacking %s: detail.status %q, want missing_permissions", rt.Pattern, p, s)
		}
	}
	after := takeSnapshot(t, e.app.DB, a.rowMarkers(), ignore...)
	for _, d := range before.diff(after) {
		// The restricted keys are the sweep's own new rows.
		if strings.HasPrefix(d, "api_keys: new or changed:") && strings.Contains(d, "name=all but ") {
			continue
		}
		t.Errorf("A's data changed during the role sweep: %s", d)
	}
	t.Logf("role sweep (%s): %d admin routes, %d calls by A's editor (session and key, with the admin's keys as targets): all 403; %d routes needing a permission (%d permissions), %d calls with a key lacking it: all 401 missing_permissions; A's %d rows unchanged",
		dialect, adminRoutes, adminCalls, permRoutes, len(keys), permCalls, before.rows())
}
