package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"timbre/internal/errs"
	"time"
	"unicode/utf8"
)

// History item states (the API's enum).
const (
	StateProcessing = "processing"
	StateCreated    = "created"
	StateDeleted    = "deleted"
)

// HistoryItem is one generation kept in history.
type HistoryItem struct {
	ID            string
	WorkspaceID   string
	UserID        string
	RequestID     string
	VoiceID       string
	VoiceName     string
	VoiceCategory string
	ModelID       string
	Text          string
	Settings      string // JSON
	DateUnix      int64
	Seq           int64
	CharFrom      int64
	CharTo        int64
	ContentType   string
	OutputFormat  string
	Source        string
	State         string
	BlobKey       string
	Alignments    string // JSON, may be empty
	Feedback      string // JSON, may be empty
	ShareToken    string
}

// ErrQuotaExceeded is returned when a charge would take the workspace past its allowance.
var ErrQuotaExceeded = errs.New(errs.Quota, "quota_exceeded", "The workspace has used its characters for this period.")

// Charge adds n characters to the workspace's count if that stays within limit (limit < 0 means
// unlimited), and returns the count before and after. It runs inside tx so the charge and the
// history row commit together; the conditional UPDATE makes concurrent charges exact.
func (tx *Tx) Charge(ctx context.Context, workspaceID string, n, limit int64, now time.Time) (from, to int64, err error) {
	if err := tx.rollPeriod(ctx, workspaceID, now); err != nil {
		return 0, 0, err
	}
	// The casts keep PostgreSQL from typing the limit parameter as int4 (limits above 2^31 failed).
	q := `UPDATE workspaces SET character_count = character_count + ? WHERE id = ? AND (CAST(? AS BIGINT) < 0 OR character_count + ? <= CAST(? AS BIGINT)) RETURNING character_count`
	err = tx.queryRow(ctx, q, n, workspaceID, limit, n, limit).Scan(&to)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, ErrQuotaExceeded
	}
	if err != nil {
		return 0, 0, err
	}
	return to - n, to, nil
}

// Refund gives n characters back (a generation that failed after it was charged).
func (tx *Tx) Refund(ctx context.Context, workspaceID string, n int64) error {
	_, err := tx.exec(ctx, `UPDATE workspaces SET character_count = CASE WHEN character_count >= ? THEN character_count - ? ELSE 0 END WHERE id = ?`, n, n, workspaceID)
	return err
}

const historyCols = `id, workspace_id, user_id, request_id, voice_id, voice_name, voice_category, model_id, text, settings, date_unix, seq, char_from, char_to, content_type, output_format, source, state, blob_key, alignments, feedback, share_token`

// historyListCols leaves the alignments out of list pages: they are large, and one item's
// alignments are a GET of that item away.
const historyListCols = `id, workspace_id, user_id, request_id, voice_id, voice_name, voice_category, model_id, text, settings, date_unix, seq, char_from, char_to, content_type, output_format, source, state, blob_key, '' AS alignments, feedback, share_token`

func scanHistory(row interface{ Scan(...any) error }) (*HistoryItem, error) {
	h := &HistoryItem{}
	var share sql.NullString
	err := row.Scan(&h.ID, &h.WorkspaceID, &h.UserID, &h.RequestID, &h.VoiceID, &h.VoiceName, &h.VoiceCategory, &h.ModelID, &h.Text, &h.Settings,
		&h.DateUnix, &h.Seq, &h.CharFrom, &h.CharTo, &h.ContentType, &h.OutputFormat, &h.Source, &h.State, &h.BlobKey, &h.Alignments, &h.Feedback, &share)
	if err != nil {
		return nil, notFound(err)
	}
	h.ShareToken = share.String
	return h, nil
}

// InsertHistory adds a history row inside tx (normally right after Charge).
func (tx *Tx) InsertHistory(ctx context.Context, h *HistoryItem) error {
	if h.Seq == 0 {
		h.Seq = time.Now().UnixNano()
	}
	_, err := tx.exec(ctx, `INSERT INTO history (`+historyCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		h.ID, h.WorkspaceID, h.UserID, h.RequestID, h.VoiceID, h.VoiceName, h.VoiceCategory, h.ModelID, h.Text, h.Settings,
		h.DateUnix, h.Seq, h.CharFrom, h.CharTo, h.ContentType, h.OutputFormat, h.Source, h.State, h.BlobKey, h.Alignments, h.Feedback, nullable(h.ShareToken))
	return err
}

// DeleteHistoryRow removes a row outright inside tx (a generation that failed).
func (tx *Tx) DeleteHistoryRow(ctx context.Context, workspaceID, id string) error {
	_, err := tx.exec(ctx, `DELETE FROM history WHERE workspace_id = ? AND id = ?`, workspaceID, id)
	return err
}

// CompleteHistory records the stored audio of a generation and marks it created.
func (db *DB) CompleteHistory(ctx context.Context, workspaceID, id, blobKey, alignments string) error {
	return affected(db.exec(ctx, `UPDATE history SET state = ?, blob_key = ?, alignments = ? WHERE workspace_id = ? AND id = ?`,
		StateCreated, blobKey, alignments, workspaceID, id))
}

// History returns one item of the workspace (deleted items are not found).
func (db *DB) History(ctx context.Context, workspaceID, id string) (*HistoryItem, error) {
	return scanHistory(db.queryRow(ctx, `SELECT `+historyCols+` FROM history WHERE workspace_id = ? AND id = ? AND state <> ?`, workspaceID, id, StateDeleted))
}

// HistoryFilter narrows ListHistory.
type HistoryFilter struct {
	PageSize     int
	StartAfterID string
	VoiceID      string
	ModelID      string
	Search       string
	Source       string
	DateBefore   int64
	DateAfter    int64
	Ascending    bool
	// VisibleTo keeps the items a user may see: their own and those shared with them (directly,
	// through a group or with the whole workspace). "" keeps every item of the workspace.
	VisibleTo string
}

// ListHistory returns a page of the workspace's history, newest first (or oldest first when
// Ascending), and whether more rows follow.
func (db *DB) ListHistory(ctx context.Context, workspaceID string, f HistoryFilter) ([]HistoryItem, bool, error) {
	where := []string{"workspace_id = ?", "state <> ?"}
	args := []any{workspaceID, StateDeleted}
	if f.StartAfterID != "" {
		var seq int64
		err := db.queryRow(ctx, `SELECT seq FROM history WHERE workspace_id = ? AND id = ?`, workspaceID, f.StartAfterID).Scan(&seq)
		if err != nil {
			return nil, false, notFound(err)
		}
		// The leading "seq <= ?" (">=" ascending) is implied by the rest but lets both databases
		// seek the (workspace_id, seq) index to the cursor instead of filtering every newer row
		// (a page 90,000 rows deep took ~70 ms on SQLite and ~20 ms on PostgreSQL without it).
		if f.Ascending {
			where = append(where, "seq >= ?", "(seq > ? OR id > ?)")
		} else {
			where = append(where, "seq <= ?", "(seq < ? OR id < ?)")
		}
		args = append(args, seq, seq, f.StartAfterID)
	}
	if f.VoiceID != "" {
		where, args = append(where, "voice_id = ?"), append(args, f.VoiceID)
	}
	if f.ModelID != "" {
		where, args = append(where, "model_id = ?"), append(args, f.ModelID)
	}
	if f.Source != "" {
		where, args = append(where, "source = ?"), append(args, f.Source)
	}
	if f.DateBefore > 0 {
		where, args = append(where, "date_unix < ?"), append(args, f.DateBefore)
	}
	if f.DateAfter > 0 {
		where, args = append(where, "date_unix > ?"), append(args, f.DateAfter)
	}
	rare := false
	if f.Search != "" {
		var err error
		if rare, err = db.rareSearch(ctx, f.Search); err != nil {
			return nil, false, err
		}
		if rare {
			// Few rows match anywhere: take them from the trigram index and sort them.
			where, args = append(where, "rowid IN (SELECT rowid FROM history_fts WHERE history_fts MATCH ?)"), append(args, ftsPhrase(f.Search))
		} else {
			// PostgreSQL's trigram GIN indexes on LOWER(…) serve this LIKE; on SQLite, a term too
			// short for trigrams or found in many rows is met soon by walking the page in order.
			where = append(where, "(LOWER(text) LIKE ? ESCAPE '\\' OR LOWER(voice_name) LIKE ? ESCAPE '\\')")
			pat := "%" + escapeLike(strings.ToLower(f.Search)) + "%"
			args = append(args, pat, pat)
		}
	}
	order := "seq DESC, id DESC"
	if f.Ascending {
		order = "seq ASC, id ASC"
	}
	size := f.PageSize
	if size <= 0 {
		size = 100
	}
	cond := strings.Join(where, " AND ")
	userCond := "user_id = ?"
	if rare {
		// "+" keeps SQLite from walking the workspace's (or member's) page index and probing
		// each row against the matches: the few matching rows are looked up by rowid instead.
		cond = strings.Replace(cond, "workspace_id = ?", "+workspace_id = ?", 1)
		userCond = "+user_id = ?"
	}
	q := `SELECT ` + historyListCols + ` FROM history WHERE ` + cond + ` ORDER BY ` + order + ` LIMIT ?`
	if f.VisibleTo != "" {
		// A member's own items and the items shared with them, each taken from its own index
		// ((workspace_id, user_id, seq) and the grants), then merged: one OR over both would
		// scan every item of the workspace for a member who owns few of them. In the shared
		// part, "workspace_id || ''" and "seq + 0" keep both databases from walking the
		// workspace's page index (100,000 rows of someone else's) instead of looking the few
		// shared ids up by primary key.
		own := `SELECT ` + historyListCols + ` FROM history WHERE ` + cond + ` AND ` + userCond + ` ORDER BY ` + order + ` LIMIT ?`
		sharedCond := strings.Replace(cond, "workspace_id = ?", "workspace_id || '' = ?", 1)
		sharedOrder := strings.Replace(order, "seq ", "seq + 0 ", 1)
		shared := `SELECT ` + historyListCols + ` FROM history WHERE ` + sharedCond + ` AND user_id <> ? AND id IN (SELECT s.resource_id FROM resource_shares s
			WHERE s.workspace_id = ? AND s.resource_type = '` + ResourceHistory + `' AND ` + visibleShare + `) ORDER BY ` + sharedOrder + ` LIMIT ?`
		q = `SELECT * FROM (` + own + `) AS own_items UNION ALL SELECT * FROM (` + shared + `) AS shared_items ORDER BY ` + order + ` LIMIT ?`
		base := args
		args = append(slices.Clone(base), f.VisibleTo, size+1)
		args = append(append(args, base...), f.VisibleTo, workspaceID, f.VisibleTo, f.VisibleTo, size+1)
	}
	args = append(args, size+1)
	rows, err := db.query(ctx, q, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []HistoryItem
	for rows.Next() {
		h, err := scanHistory(rows)
		if err != nil {
			return nil, false, err
		}
		out = append(out, *h)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	more := len(out) > size
	if more {
		out = out[:size]
	}
	return out, more, nil
}

// searchRareMax is how many matching rows (in all workspaces) make a search term common: above
// it, walking a page in order meets 100 matches sooner than sorting every match would.
const searchRareMax = 5000

// rareSearch reports whether SQLite's trigram index should answer a search for term: it is at
// least three characters long (a trigram) and matches at most searchRareMax rows. Counting stops
// there, so a common term costs a few thousand index entries, not a scan.
func (db *DB) rareSearch(ctx context.Context, term string) (bool, error) {
	if db.Dialect != SQLite || utf8.RuneCountInString(term) < 3 {
		return false, nil
	}
	var n int
	err := db.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT rowid FROM history_fts WHERE history_fts MATCH ? LIMIT ?)`, ftsPhrase(term), searchRareMax+1).Scan(&n)
	return n <= searchRareMax, err
}

// ftsPhrase quotes term as one FTS5 phrase; with the trigram tokenizer a phrase matches any
// substring, case-insensitively.
func ftsPhrase(term string) string { return `"` + strings.ReplaceAll(term, `"`, `""`) + `"` }

// MarkHistoryDeleted hides an item; its audio is purged later by a job.
func (db *DB) MarkHistoryDeleted(ctx context.Context, workspaceID, id string, now time.Time) error {
	return affected(db.exec(ctx, `UPDATE history SET state = ?, deleted_at_unix = ?, share_token = NULL WHERE workspace_id = ? AND id = ? AND state <> ?`,
		StateDeleted, now.Unix(), workspaceID, id, StateDeleted))
}

// PurgeableHistory lists deleted items whose audio may now be removed.
func (db *DB) PurgeableHistory(ctx context.Context, deletedBefore time.Time, limit int) ([]HistoryItem, error) {
	return collect(scanHistory)(db.query(ctx, `SELECT `+historyCols+` FROM history WHERE state = ? AND deleted_at_unix < ? ORDER BY deleted_at_unix LIMIT ?`,
		StateDeleted, deletedBefore.Unix(), limit))
}

// PurgeHistoryRow removes a deleted row for good (after its audio blob is gone).
func (db *DB) PurgeHistoryRow(ctx context.Context, workspaceID, id string) error {
	return affected(db.exec(ctx, `DELETE FROM history WHERE workspace_id = ? AND id = ? AND state = ?`, workspaceID, id, StateDeleted))
}

// ErrFeedbackReviewed is returned when feedback was already reviewed and so is locked.
var ErrFeedbackReviewed = errs.New(errs.Conflict, "feedback_reviewed", "This feedback cannot be changed as it was already reviewed.")

// SetFeedback replaces an item's feedback unless the existing feedback has been reviewed.
func (db *DB) SetFeedback(ctx context.Context, workspaceID, id, feedbackJSON string) error {
	return db.InTx(ctx, func(tx *Tx) error {
		var cur string
		err := tx.queryRow(ctx, `SELECT feedback FROM history WHERE workspace_id = ? AND id = ? AND state <> ?`, workspaceID, id, StateDeleted).Scan(&cur)
		if err != nil {
			return notFound(err)
		}
		if feedbackReviewed(cur) {
			return ErrFeedbackReviewed
		}
		_, err = tx.exec(ctx, `UPDATE history SET feedback = ? WHERE workspace_id = ? AND id = ?`, feedbackJSON, workspaceID, id)
		return err
	})
}

// feedbackReviewed says whether stored feedback JSON has review_status "reviewed" (parsed, so
// spacing or key order in the stored JSON does not matter).
func feedbackReviewed(feedbackJSON string) bool {
	if feedbackJSON == "" {
		return false
	}
	var f struct {
		ReviewStatus string `json:"review_status"`
	}
	if err := json.Unmarshal([]byte(feedbackJSON), &f); err != nil {
		return strings.Contains(feedbackJSON, `"review_status":"reviewed"`)
	}
	return f.ReviewStatus == "reviewed"
}

// SetShareToken gives an item a public share token, keeping an existing one; returns the token.
func (db *DB) SetShareToken(ctx context.Context, workspaceID, id, token string) (string, error) {
	var out string
	err := db.InTx(ctx, func(tx *Tx) error {
		var cur sql.NullString
		if err := tx.queryRow(ctx, `SELECT share_token FROM history WHERE workspace_id = ? AND id = ? AND state = ?`, workspaceID, id, StateCreated).Scan(&cur); err != nil {
			return notFound(err)
		}
		if cur.Valid && cur.String != "" {
			out = cur.String
			return nil
		}
		out = token
		_, err := tx.exec(ctx, `UPDATE history SET share_token = ? WHERE workspace_id = ? AND id = ?`, token, workspaceID, id)
		return err
	})
	return out, err
}

// HistoryByShareToken finds a shared item (public, so not scoped by workspace: the token is the capability).
func (db *DB) HistoryByShareToken(ctx context.Context, token string) (*HistoryItem, error) {
	if token == "" {
		return nil, ErrNotFound
	}
	return scanHistory(db.queryRow(ctx, `SELECT `+historyCols+` FROM history WHERE share_token = ? AND state = ?`, token, StateCreated))
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func escapeLike(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}
