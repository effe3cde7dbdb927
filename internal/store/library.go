package store

import (
	"context"
	"strings"
)

// VoiceShare is a voice's sharing row: a published library voice (status enabled, disabled,
// copied_disabled) or a copy another workspace made of one (status copied).
type VoiceShare struct {
	VoiceID          string
	WorkspaceID      string
	PublicOwnerID    string
	Status           string
	OriginalVoiceID  string
	Description      string
	FinancialRewards bool
	FreeUsersAllowed bool
	LiveModeration   bool
	VoiceMixing      bool
	Featured         bool
	ReaderApp        bool
	NoticePeriod     int
	DisableAt        int64
	DateUnix         int64
	ClonedByCount    int
}

const shareCols = `voice_id, workspace_id, public_owner_id, status, original_voice_id, description, financial_rewards_enabled,
	free_users_allowed, live_moderation_enabled, voice_mixing_allowed, featured, reader_app_enabled, notice_period, disable_at_unix,
	date_unix, cloned_by_count`

func (s *VoiceShare) ptrs() []any {
	return []any{&s.VoiceID, &s.WorkspaceID, &s.PublicOwnerID, &s.Status, &s.OriginalVoiceID, &s.Description, &s.FinancialRewards,
		&s.FreeUsersAllowed, &s.LiveModeration, &s.VoiceMixing, &s.Featured, &s.ReaderApp, &s.NoticePeriod, &s.DisableAt,
		&s.DateUnix, &s.ClonedByCount}
}

func (s *VoiceShare) args() []any {
	return []any{s.VoiceID, s.WorkspaceID, s.PublicOwnerID, s.Status, s.OriginalVoiceID, s.Description, s.FinancialRewards,
		s.FreeUsersAllowed, s.LiveModeration, s.VoiceMixing, s.Featured, s.ReaderApp, s.NoticePeriod, s.DisableAt,
		s.DateUnix, s.ClonedByCount}
}

// VoiceShare finds the sharing row of a workspace's voice.
func (db *DB) VoiceShare(ctx context.Context, workspaceID, voiceID string) (*VoiceShare, error) {
	s := &VoiceShare{}
	err := db.queryRow(ctx, `SELECT `+shareCols+` FROM voice_shares WHERE workspace_id = ? AND voice_id = ?`, workspaceID, voiceID).Scan(s.ptrs()...)
	if err != nil {
		return nil, notFound(err)
	}
	return s, nil
}

// VoiceSharesOf loads the sharing rows of a workspace's voices in one query.
func (db *DB) VoiceSharesOf(ctx context.Context, workspaceID string, voiceIDs []string) (map[string]VoiceShare, error) {
	out := map[string]VoiceShare{}
	if len(voiceIDs) == 0 {
		return out, nil
	}
	args := []any{workspaceID}
	for _, id := range voiceIDs {
		args = append(args, id)
	}
	rows, err := db.query(ctx, `SELECT `+shareCols+` FROM voice_shares WHERE workspace_id = ? AND voice_id IN (`+placeholders(len(voiceIDs))+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var s VoiceShare
		if err := rows.Scan(s.ptrs()...); err != nil {
			return nil, err
		}
		out[s.VoiceID] = s
	}
	return out, rows.Err()
}

// UpsertVoiceShare publishes a workspace voice or changes its sharing settings (the date it
// was first published and its counters are kept).
func (db *DB) UpsertVoiceShare(ctx context.Context, s VoiceShare) error {
	_, err := db.exec(ctx, `INSERT INTO voice_shares (`+shareCols+`) VALUES (`+placeholders(16)+`)
		ON CONFLICT (voice_id) DO UPDATE SET status = excluded.status, description = excluded.description,
		financial_rewards_enabled = excluded.financial_rewards_enabled, free_users_allowed = excluded.free_users_allowed,
		live_moderation_enabled = excluded.live_moderation_enabled, voice_mixing_allowed = excluded.voice_mixing_allowed,
		reader_app_enabled = excluded.reader_app_enabled, notice_period = excluded.notice_period, disable_at_unix = excluded.disable_at_unix
		WHERE voice_shares.workspace_id = excluded.workspace_id`, s.args()...)
	return err
}

// LibraryVoice is a published voice as the library shows it: the voice and its sharing row.
type LibraryVoice struct {
	Voice
	Share VoiceShare
}

// LibraryFilter narrows ListLibrary. Empty fields do not filter.
type LibraryFilter struct {
	Search, Category, Gender, Age, Accent, Language, Locale, OwnerID string
	UseCases, Descriptives                                           []string
	Featured, ReaderApp                                              bool
	MinNoticeDays                                                    int
	ExcludeLiveModerated                                             bool
	VoiceIDs                                                         []string // only these (similar voices)
	Sort                                                             string   // created_date, cloned_by_count, usage_character_count_1y, trending
	Offset, Limit                                                    int
}

// labelCond matches a labels JSON object holding "key":"value" (labels are stored as compact
// JSON written by encoding/json, so the pair's text is exact).
const labelCond = `LOWER(v.labels) LIKE ? ESCAPE '\'`

func labelPat(key, val string) string {
	return "%" + escapeLike(`"`+key+`":"`+strings.ToLower(val)+`"`) + "%"
}

// ListLibrary lists the enabled library voices of every workspace (the one cross-workspace
// read: only published rows, and the caller renders only their public fields) and the total.
func (db *DB) ListLibrary(ctx context.Context, f LibraryFilter) ([]LibraryVoice, int, error) {
	where := []string{"s.status = 'enabled'"}
	var args []any
	eq := func(col, val string) {
		if val != "" {
			where, args = append(where, col+" = ?"), append(args, val)
		}
	}
	label := func(key, val string) {
		if val != "" {
			where, args = append(where, labelCond), append(args, labelPat(key, val))
		}
	}
	anyLabel := func(key string, vals []string) {
		var ors []string
		for _, val := range vals {
			if val != "" {
				ors, args = append(ors, labelCond), append(args, labelPat(key, val))
			}
		}
		if len(ors) > 0 {
			where = append(where, "("+strings.Join(ors, " OR ")+")")
		}
	}
	if f.Search != "" {
		pat := "%" + escapeLike(strings.ToLower(f.Search)) + "%"
		where = append(where, `(LOWER(v.name) LIKE ? ESCAPE '\' OR LOWER(s.description) LIKE ? ESCAPE '\' OR LOWER(v.labels) LIKE ? ESCAPE '\')`)
		args = append(args, pat, pat, pat)
	}
	eq("v.category", f.Category)
	eq("s.public_owner_id", f.OwnerID)
	if f.Language != "" {
		where, args = append(where, "LOWER(v.language) = ?"), append(args, strings.ToLower(f.Language))
	}
	label("gender", f.Gender)
	label("age", f.Age)
	label("accent", f.Accent)
	label("locale", f.Locale)
	anyLabel("use_case", f.UseCases)
	anyLabel("descriptive", f.Descriptives)
	if f.Featured {
		where = append(where, "s.featured = ?")
		args = append(args, true)
	}
	if f.ReaderApp {
		where = append(where, "s.reader_app_enabled = ?")
		args = append(args, true)
	}
	if f.ExcludeLiveModerated {
		where = append(where, "s.live_moderation_enabled = ?")
		args = append(args, false)
	}
	if f.MinNoticeDays > 0 {
		where, args = append(where, "s.notice_period >= ?"), append(args, f.MinNoticeDays)
	}
	if f.VoiceIDs != nil {
		if len(f.VoiceIDs) == 0 {
			return nil, 0, nil
		}
		where = append(where, "v.id IN ("+placeholders(len(f.VoiceIDs))+")")
		for _, id := range f.VoiceIDs {
			args = append(args, id)
		}
	}
	from := ` FROM voice_shares s JOIN voices v ON v.id = s.voice_id AND v.workspace_id = s.workspace_id WHERE ` + strings.Join(where, " AND ")
	var total int
	if err := db.queryRow(ctx, `SELECT COUNT(*)`+from, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	// The usage sorts and "trending" rank by copies, then newest first: ranking by characters
	// would sum the ledger for every library voice (LibraryUsage sums it for a page).
	order := "s.date_unix DESC, v.id"
	switch f.Sort {
	case "cloned_by_count", "usage_character_count_1y", "trending":
		order = "s.cloned_by_count DESC, s.date_unix DESC, v.id"
	}
	cols := "v." + strings.ReplaceAll(voiceCols, ", ", ", v.") + ", s." + strings.Join(strings.Fields(strings.ReplaceAll(shareCols, ",", " ")), ", s.")
	q := `SELECT ` + cols + from + ` ORDER BY ` + order
	if f.Limit > 0 {
		q += ` LIMIT ? OFFSET ?`
		args = append(args, f.Limit, f.Offset)
	}
	rows, err := db.query(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []LibraryVoice
	for rows.Next() {
		var lv LibraryVoice
		v := &lv.Voice
		dst := append([]any{&v.ID, &v.WorkspaceID, &v.Name, &v.Category, &v.Description, &v.Labels, &v.Engine, &v.EngineVoice, &v.Language,
			&v.Prosody, &v.PreviewKey, &v.SortOrder, &v.CreatedAt, &v.Voiceprint, &v.CreatedBy, &v.PVC}, lv.Share.ptrs()...)
		if err := rows.Scan(dst...); err != nil {
			return nil, 0, err
		}
		out = append(out, lv)
	}
	return out, total, rows.Err()
}

// LibraryVoiceByOwner finds a published voice by its public owner and id, whatever its status
// (the caller decides what a disabled one answers).
func (db *DB) LibraryVoiceByOwner(ctx context.Context, publicOwnerID, voiceID string) (*LibraryVoice, error) {
	var lv LibraryVoice
	v := &lv.Voice
	dst := append([]any{&v.ID, &v.WorkspaceID, &v.Name, &v.Category, &v.Description, &v.Labels, &v.Engine, &v.EngineVoice, &v.Language,
		&v.Prosody, &v.PreviewKey, &v.SortOrder, &v.CreatedAt, &v.Voiceprint, &v.CreatedBy, &v.PVC}, lv.Share.ptrs()...)
	cols := "v." + strings.ReplaceAll(voiceCols, ", ", ", v.") + ", s." + strings.Join(strings.Fields(strings.ReplaceAll(shareCols, ",", " ")), ", s.")
	err := db.queryRow(ctx, `SELECT `+cols+` FROM voice_shares s JOIN voices v ON v.id = s.voice_id AND v.workspace_id = s.workspace_id
		WHERE s.public_owner_id = ? AND s.voice_id = ? AND s.status <> 'copied'`, publicOwnerID, voiceID).Scan(dst...)
	if err != nil {
		return nil, notFound(err)
	}
	return &lv, nil
}

// InsertVoiceCopy stores a copy's sharing row and counts the copy on the original, in the
// transaction that adds the copy.
func (tx *Tx) InsertVoiceCopy(ctx context.Context, s VoiceShare) error {
	if _, err := tx.exec(ctx, `INSERT INTO voice_shares (`+shareCols+`) VALUES (`+placeholders(16)+`)`, s.args()...); err != nil {
		return err
	}
	return affected(tx.exec(ctx, `UPDATE voice_shares SET cloned_by_count = cloned_by_count + 1 WHERE voice_id = ? AND status <> 'copied'`, s.OriginalVoiceID))
}

// CopiedVoiceIDs lists which of the given library voices the workspace has already copied.
func (db *DB) CopiedVoiceIDs(ctx context.Context, workspaceID string, originals []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(originals) == 0 {
		return out, nil
	}
	args := []any{workspaceID}
	for _, id := range originals {
		args = append(args, id)
	}
	rows, err := db.query(ctx, `SELECT original_voice_id FROM voice_shares WHERE workspace_id = ? AND status = 'copied' AND original_voice_id IN (`+placeholders(len(originals))+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// VoiceCollection is a workspace's named group of voices.
type VoiceCollection struct {
	ID          string
	WorkspaceID string
	Title       string
	Icon        string
	CreatedBy   string
	CreatedAt   int64
}

const collectionCols = `collection_id, workspace_id, title, icon, created_by, created_at_unix`

func scanCollection(row interface{ Scan(...any) error }) (*VoiceCollection, error) {
	c := &VoiceCollection{}
	if err := row.Scan(&c.ID, &c.WorkspaceID, &c.Title, &c.Icon, &c.CreatedBy, &c.CreatedAt); err != nil {
		return nil, notFound(err)
	}
	return c, nil
}

// CreateVoiceCollection stores a new collection.
func (db *DB) CreateVoiceCollection(ctx context.Context, c VoiceCollection) error {
	_, err := db.exec(ctx, `INSERT INTO voice_collections (`+collectionCols+`) VALUES (?, ?, ?, ?, ?, ?)`,
		c.ID, c.WorkspaceID, c.Title, c.Icon, c.CreatedBy, c.CreatedAt)
	return err
}

// VoiceCollections lists a workspace's collections by title.
func (db *DB) VoiceCollections(ctx context.Context, workspaceID string) ([]VoiceCollection, error) {
	return collect(scanCollection)(db.query(ctx, `SELECT `+collectionCols+` FROM voice_collections WHERE workspace_id = ? ORDER BY LOWER(title), collection_id`, workspaceID))
}

// VoiceCollection finds a workspace's collection.
func (db *DB) VoiceCollection(ctx context.Context, workspaceID, id string) (*VoiceCollection, error) {
	return scanCollection(db.queryRow(ctx, `SELECT `+collectionCols+` FROM voice_collections WHERE workspace_id = ? AND collection_id = ?`, workspaceID, id))
}

// UpdateVoiceCollection changes a collection's title and icon.
func (db *DB) UpdateVoiceCollection(ctx context.Context, c VoiceCollection) error {
	return affected(db.exec(ctx, `UPDATE voice_collections SET title = ?, icon = ? WHERE workspace_id = ? AND collection_id = ?`, c.Title, c.Icon, c.WorkspaceID, c.ID))
}

// DeleteVoiceCollection removes a collection (its voices stay).
func (db *DB) DeleteVoiceCollection(ctx context.Context, workspaceID, id string) error {
	return db.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `DELETE FROM voice_collection_voices WHERE workspace_id = ? AND collection_id = ?`, workspaceID, id); err != nil {
			return err
		}
		return affected(tx.exec(ctx, `DELETE FROM voice_collections WHERE workspace_id = ? AND collection_id = ?`, workspaceID, id))
	})
}

// AddVoiceToCollection puts a voice in a collection (again: no change).
func (db *DB) AddVoiceToCollection(ctx context.Context, workspaceID, collectionID, voiceID string, now int64) error {
	_, err := db.exec(ctx, `INSERT INTO voice_collection_voices (collection_id, voice_id, workspace_id, added_at_unix) VALUES (?, ?, ?, ?)
		ON CONFLICT (collection_id, voice_id) DO NOTHING`, collectionID, voiceID, workspaceID, now)
	return err
}

// RemoveVoiceFromCollection takes a voice out of a collection.
func (db *DB) RemoveVoiceFromCollection(ctx context.Context, workspaceID, collectionID, voiceID string) error {
	return affected(db.exec(ctx, `DELETE FROM voice_collection_voices WHERE workspace_id = ? AND collection_id = ? AND voice_id = ?`, workspaceID, collectionID, voiceID))
}

// PublishedVoice finds a voice enabled in the library by id alone: published voices are public
// (their previews are served without a key).
func (db *DB) PublishedVoice(ctx context.Context, voiceID string) (*Voice, error) {
	return scanVoice(db.queryRow(ctx, `SELECT `+voiceSelect+` FROM voices WHERE id = ? AND workspace_id <> ''
		AND id IN (SELECT voice_id FROM voice_shares WHERE voice_id = ? AND status = 'enabled')`, voiceID, voiceID))
}

// WorkspacesThatCopied lists the workspaces holding a copy of a library voice: those its removal
// notices go to.
func (db *DB) WorkspacesThatCopied(ctx context.Context, voiceID string) ([]string, error) {
	return collect(func(r rowScanner) (*string, error) {
		var ws string
		return &ws, r.Scan(&ws)
	})(db.query(ctx, `SELECT DISTINCT workspace_id FROM voice_shares WHERE status = 'copied' AND original_voice_id = ? ORDER BY workspace_id`, voiceID))
}

// CopyOrigin is what became of the library voice a workspace's copy was taken from.
type CopyOrigin struct {
	Status    string // the original's share status (e.g. copied_disabled once withdrawn)
	DisableAt int64  // end of the notice period of a withdrawn original (0: none)
	Control   string // the original's safety control
}

// CopyOriginOf returns the origin of the workspace's voice when it is a library copy whose
// original still exists; ErrNotFound for any other voice.
func (db *DB) CopyOriginOf(ctx context.Context, workspaceID, voiceID string) (*CopyOrigin, error) {
	o := &CopyOrigin{}
	err := db.queryRow(ctx, `SELECT o.status, o.disable_at_unix, COALESCE(s.control, 'NONE')
		FROM voice_shares c
		JOIN voice_shares o ON o.voice_id = c.original_voice_id
		LEFT JOIN voice_safety s ON s.voice_id = o.voice_id
		WHERE c.workspace_id = ? AND c.voice_id = ? AND c.status = 'copied'`, workspaceID, voiceID).Scan(&o.Status, &o.DisableAt, &o.Control)
	if err != nil {
		return nil, notFound(err)
	}
	return o, nil
}

// LibraryUsage is the characters spoken with the copies of library voices: since7d and since1y
// are Unix times; the result maps an original voice id to [7-day, 1-year] delivered characters.
// Only counts leave the copiers' workspaces (the library's public figures).
func (db *DB) LibraryUsage(ctx context.Context, originalIDs []string, since7d, since1y int64) (map[string][2]int64, error) {
	out := map[string][2]int64{}
	if len(originalIDs) == 0 {
		return out, nil
	}
	args := []any{since7d}
	for _, id := range originalIDs {
		args = append(args, id)
	}
	args = append(args, since1y)
	rows, err := db.query(ctx, `SELECT c.original_voice_id,
			COALESCE(SUM(CASE WHEN l.created_at_unix >= ? THEN l.delivered_units ELSE 0 END), 0), COALESCE(SUM(l.delivered_units), 0)
		FROM voice_shares c
		JOIN metering_ledger l ON l.workspace_id = c.workspace_id AND l.voice_id = c.voice_id
		WHERE c.status = 'copied' AND c.original_voice_id IN (`+placeholders(len(originalIDs))+`)
			AND l.product = 'tts' AND l.created_at_unix >= ?
		GROUP BY c.original_voice_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var week, year int64
		if err := rows.Scan(&id, &week, &year); err != nil {
			return nil, err
		}
		out[id] = [2]int64{week, year}
	}
	return out, rows.Err()
}

// SetVoiceFeatured features a published library voice (an operator's act, not scoped to a
// workspace); ErrNotFound when the voice is not published.
func (db *DB) SetVoiceFeatured(ctx context.Context, voiceID string, featured bool) error {
	return affected(db.exec(ctx, `UPDATE voice_shares SET featured = ? WHERE voice_id = ? AND status <> 'copied'`, featured, voiceID))
}
