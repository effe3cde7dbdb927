package store

import (
	"cmp"
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
	Dialogue      string // JSON list of the lines of a text-to-dialogue item, may be empty
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

const historyCols = `id, workspace_id, user_id, request_id, voice_id, voice_name, voice_category, model_id, text, settings, date_unix, seq, char_from, char_to, content_type, output_format, source, state, blob_key, alignments, feedback, share_token, dialogue`

// historyListCols leaves the alignments out of list pages: they are large, and one item's
// alignments are a GET of that item away.
const historyListCols = `id, workspace_id, user_id, request_id, voice_id, voice_name, voice_category, model_id, text, settings, date_unix, seq, char_from, char_to, content_type, output_format, source, state, blob_key, '' AS alignments, feedback, share_token, dialogue`

func scanHistory(row interface{ Scan(...any) error }) (*HistoryItem, error) {
	h := &HistoryItem{}
	var share sql.NullString
	err := row.Scan(&h.ID, &h.WorkspaceID, &h.UserID, &h.RequestID, &h.VoiceID, &h.VoiceName, &h.VoiceCategory, &h.ModelID, &h.Text, &h.Settings,
		&h.DateUnix, &h.Seq, &h.CharFrom, &h.CharTo, &h.ContentType, &h.OutputFormat, &h.Source, &h.State, &h.BlobKey, &h.Alignments, &h.Feedback, &share, &h.Dialogue)
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
	_, err := tx.exec(ctx, `INSERT INTO history (`+historyCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		h.ID, h.WorkspaceID, h.UserID, h.RequestID, h.VoiceID, h.VoiceName, h.VoiceCategory, h.ModelID, h.Text, h.Settings,
		h.DateUnix, h.Seq, h.CharFrom, h.CharTo, h.ContentType, h.OutputFormat, h.Source, h.State, h.BlobKey, h.Alignments, h.Feedback, nullable(h.ShareToken), h.Dialogue)
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

// order is the ORDER BY of a page: newest first, or oldest first when Ascending.
func (f HistoryFilter) order() string {
	if f.Ascending {
		return "seq ASC, id ASC"
	}
	return "seq DESC, id DESC"
}

// ListHistory returns a page of the workspace's history, newest first (or oldest first when
// Ascending), and whether more rows follow.
func (db *DB) ListHistory(ctx context.Context, workspaceID string, f HistoryFilter) ([]HistoryItem, bool, error) {
	size := f.PageSize
	if size <= 0 {
		size = 100
	}
	where := []string{"workspace_id = ?", "state <> ?"}
	args := []any{workspaceID, StateDeleted}
	var cursorRowid int64
	if f.StartAfterID != "" {
		var seq int64
		var err error
		if db.Dialect == SQLite {
			// A search's walk starts after the cursor's rowid when the cursor is in seq order.
			var outOfOrder bool
			err = db.queryRow(ctx, `SELECT seq, rowid, out_of_order FROM history WHERE workspace_id = ? AND id = ?`, workspaceID, f.StartAfterID).Scan(&seq, &cursorRowid, &outOfOrder)
			if outOfOrder {
				cursorRowid = 0
			}
		} else {
			err = db.queryRow(ctx, `SELECT seq FROM history WHERE workspace_id = ? AND id = ?`, workspaceID, f.StartAfterID).Scan(&seq)
		}
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
	// The conditions without the date filters, for the rows in date order (listHistoryDated).
	undated, undatedArgs := slices.Clone(where), slices.Clone(args)
	if f.DateBefore > 0 {
		where, args = append(where, "date_unix < ?"), append(args, f.DateBefore)
	}
	// date_after_unix is inclusive and date_before_unix exclusive, as the reference defines them.
	if f.DateAfter > 0 {
		where, args = append(where, "date_unix >= ?"), append(args, f.DateAfter)
	}
	page := func(where, undated []string, args, undatedArgs []any) ([]HistoryItem, bool, error) {
		if f.DateBefore > 0 || f.DateAfter > 0 {
			return db.listHistoryDated(ctx, workspaceID, f, strings.Join(where, " AND "), args, strings.Join(undated, " AND "), undatedArgs, size)
		}
		return db.listHistoryPage(ctx, workspaceID, f, strings.Join(where, " AND "), args, "", "", size)
	}
	if f.Search == "" {
		return page(where, undated, args, undatedArgs)
	}
	if db.Dialect == SQLite && utf8.RuneCountInString(f.Search) >= 3 {
		items, more, complete, err := db.searchNewestFirst(ctx, workspaceID, f, where, args, cursorRowid, size)
		if err != nil || complete {
			return items, more, err
		}
	}
	// PostgreSQL's trigram GIN indexes on LOWER(…) serve this LIKE; on SQLite it is the way for a
	// term too short for trigrams, or one the newest matches of other workspaces crowd out: the
	// page is walked in order, each row tested.
	pat := "%" + escapeLike(strings.ToLower(f.Search)) + "%"
	return page(append(where, searchLike), append(undated, searchLike), append(args, pat, pat), append(undatedArgs, pat, pat))
}

// listHistoryDated reads a page filtered by date: cond holds the date filters, undated the same
// conditions without them. Walking the page in seq order and testing each row's date would pass
// every newer row outside the range (half a million rows for a date in the middle of a million).
// Instead the rows in date order (date_out_of_order unset, migration 00023), whose seqs rise with
// their dates, are read between the seqs of the range's first and last such rows, found in
// history_date_order: every one of them is in the range. The rows out of date order, and those
// shared with the member, are read apart and tested; both parts are merged.
func (db *DB) listHistoryDated(ctx context.Context, workspaceID string, f HistoryFilter, cond string, args []any, undated string, undatedArgs []any, size int) ([]HistoryItem, bool, error) {
	inOrder := " AND date_out_of_order = FALSE"
	var bounds []any
	empty := false
	if f.DateBefore > 0 {
		var hi int64
		err := db.queryRow(ctx, `SELECT seq FROM history WHERE workspace_id = ? AND date_out_of_order = FALSE AND date_unix < ? ORDER BY date_unix DESC, seq DESC LIMIT 1`,
			workspaceID, f.DateBefore).Scan(&hi)
		empty = errors.Is(err, sql.ErrNoRows)
		if err != nil && !empty {
			return nil, false, err
		}
		inOrder, bounds = inOrder+" AND seq <= ?", append(bounds, hi)
	}
	if f.DateAfter > 0 && !empty {
		var lo int64
		err := db.queryRow(ctx, `SELECT seq FROM history WHERE workspace_id = ? AND date_out_of_order = FALSE AND date_unix >= ? ORDER BY date_unix, seq LIMIT 1`,
			workspaceID, f.DateAfter).Scan(&lo)
		empty = errors.Is(err, sql.ErrNoRows)
		if err != nil && !empty {
			return nil, false, err
		}
		inOrder, bounds = inOrder+" AND seq >= ?", append(bounds, lo)
	}
	var items []HistoryItem
	if !empty {
		order := f.order()
		q := `SELECT ` + historyListCols + ` FROM history WHERE ` + undated + inOrder
		qargs := append(slices.Clone(undatedArgs), bounds...)
		if f.VisibleTo != "" {
			q, qargs = q+" AND user_id = ?", append(qargs, f.VisibleTo)
		}
		var err error
		items, err = collect(scanHistory)(db.query(ctx, q+` ORDER BY `+order+` LIMIT ?`, append(qargs, size+1)...))
		if err != nil {
			return nil, false, err
		}
	}
	index := ""
	if db.Dialect == SQLite {
		index = "history_date_out_of_order"
	}
	rest, restMore, err := db.listHistoryPage(ctx, workspaceID, f, cond, args, index, " AND date_out_of_order = TRUE", size)
	if err != nil {
		return nil, false, err
	}
	items = append(items, rest...)
	slices.SortFunc(items, func(a, b HistoryItem) int {
		c := cmp.Or(cmp.Compare(a.Seq, b.Seq), strings.Compare(a.ID, b.ID))
		if !f.Ascending {
			c = -c
		}
		return c
	})
	// rest holds at most a page; that it had more means more follow.
	more := len(items) > size || restMore
	if len(items) > size {
		items = items[:size]
	}
	return items, more, nil
}

// searchLike is the search as a LIKE on each row (two arguments: the escaped, lower-case pattern).
const searchLike = "(LOWER(text) LIKE ? ESCAPE '\\' OR LOWER(voice_name) LIKE ? ESCAPE '\\')"

// listHistoryPage reads a page of the rows that meet cond: the workspace's, or a member's own and
// those shared with them. A non-empty ownIndex reads the member's own rows (or the workspace's,
// when there is no member) from that partial index of SQLite's, and ownCond narrows them to it.
func (db *DB) listHistoryPage(ctx context.Context, workspaceID string, f HistoryFilter, cond string, args []any, ownIndex, ownCond string, size int) ([]HistoryItem, bool, error) {
	order := f.order()
	own, from := cond+ownCond, "history"
	if ownIndex != "" {
		from += " INDEXED BY " + ownIndex
	}
	q := `SELECT ` + historyListCols + ` FROM ` + from + ` WHERE ` + own + ` ORDER BY ` + order + ` LIMIT ?`
	qargs := slices.Clone(args)
	if f.VisibleTo != "" {
		// A member's own items and the items shared with them, each taken from its own index
		// ((workspace_id, user_id, seq) and the grants), then merged: one OR over both would
		// scan every item of the workspace for a member who owns few of them. In the shared
		// part, "workspace_id || ''" and "seq + 0" keep both databases from walking the
		// workspace's page index (100,000 rows of someone else's) instead of looking the few
		// shared ids up by primary key.
		ownQ := `SELECT ` + historyListCols + ` FROM ` + from + ` WHERE ` + own + ` AND user_id = ? ORDER BY ` + order + ` LIMIT ?`
		sharedCond := strings.Replace(cond, "workspace_id = ?", "workspace_id || '' = ?", 1)
		sharedOrder := strings.Replace(order, "seq ", "seq + 0 ", 1)
		shared := `SELECT ` + historyListCols + ` FROM history WHERE ` + sharedCond + ` AND user_id <> ? AND id IN (SELECT s.resource_id FROM resource_shares s
			WHERE s.workspace_id = ? AND s.resource_type = '` + ResourceHistory + `' AND ` + visibleShare + `) ORDER BY ` + sharedOrder + ` LIMIT ?`
		q = `SELECT * FROM (` + ownQ + `) AS own_items UNION ALL SELECT * FROM (` + shared + `) AS shared_items ORDER BY ` + order + ` LIMIT ?`
		qargs = append(qargs, f.VisibleTo, size+1)
		qargs = append(append(qargs, args...), f.VisibleTo, workspaceID, f.VisibleTo, f.VisibleTo, size+1)
	}
	qargs = append(qargs, size+1)
	out, err := collect(scanHistory)(db.query(ctx, q, qargs...))
	if err != nil {
		return nil, false, err
	}
	more := len(out) > size
	if more {
		out = out[:size]
	}
	return out, more, nil
}

// searchWalkMax is how many of the newest trigram-index matches (in all workspaces) a SQLite search
// walks looking for a page of the workspace's. When that finds less than a page, a term with up to
// searchScanMax matches has all of them walked (a term in 1,000 rows with a voice filter none of
// them meets walked the voice's 200,000 rows with LIKE: 700 ms; its 1,000 matches take a few ms);
// past it, the page walk with LIKE takes over.
const (
	searchWalkMax = 500
	searchScanMax = 5000
)

// searchNewestFirst answers a SQLite search (a term of three characters or more) from the trigram
// index: its matches are walked newest first — by rowid, which is seq order for every row not
// marked out_of_order (migration 00018) — joined to their rows, until a page of the caller's
// is found; the out-of-order rows, the rows shared with the member and the newest rows the index
// has not taken yet (history_fts_pending, fewer than 64) are read apart and tested with LIKE. The
// matches of a page 100 rows deep cost 100 row reads, however many rows match in all. complete is
// false when the walk of the newest searchWalkMax matches did not fill a page and more than
// searchScanMax matches remain: the caller then walks the page in order.
func (db *DB) searchNewestFirst(ctx context.Context, workspaceID string, f HistoryFilter, where []string, args []any, cursorRowid int64, size int) (items []HistoryItem, more, complete bool, err error) {
	// The matches to walk: all, or those past an in-order cursor (the in-order rows after it in
	// seq order are exactly those after it in rowid order).
	matches, matchArgs := `SELECT rowid FROM history_fts WHERE history_fts MATCH ?`, []any{ftsPhrase(f.Search)}
	dir := "DESC"
	if f.Ascending {
		dir = "ASC"
	}
	if cursorRowid > 0 {
		past := " AND rowid < ?"
		if f.Ascending {
			past = " AND rowid > ?"
		}
		matches, matchArgs = matches+past, append(matchArgs, cursorRowid)
	}
	cond := strings.Join(where, " AND ")
	userCond, userArgs := "", []any(nil)
	if f.VisibleTo != "" {
		userCond, userArgs = " AND user_id = ?", []any{f.VisibleTo}
	}
	// CROSS JOIN keeps the matches the outer loop, so the LIMIT stops the walk in rowid order.
	walk := `SELECT ` + historyListCols + ` FROM (` + matches + ` ORDER BY rowid ` + dir + ` LIMIT ?) AS m
		CROSS JOIN history ON history.rowid = m.rowid WHERE ` + cond + ` AND out_of_order = 0` + userCond + ` LIMIT ?`
	walkUpTo := func(limit int) ([]HistoryItem, error) {
		walkArgs := append(append(append(slices.Clone(matchArgs), limit), args...), userArgs...)
		return collect(scanHistory)(db.query(ctx, walk, append(walkArgs, size+1)...))
	}
	walked, err := walkUpTo(searchWalkMax)
	if err != nil {
		return nil, false, false, err
	}
	if len(walked) <= size {
		// Short of a page: complete only if the walk saw every match, or walks them all now.
		var n int
		if err := db.queryRow(ctx, `SELECT COUNT(*) FROM (`+matches+` LIMIT ?)`, append(matchArgs, searchScanMax+1)...).Scan(&n); err != nil {
			return nil, false, false, err
		}
		if n > searchScanMax {
			return nil, false, false, nil
		}
		if n > searchWalkMax {
			if walked, err = walkUpTo(searchScanMax); err != nil {
				return nil, false, false, err
			}
		}
	}
	pat := "%" + escapeLike(strings.ToLower(f.Search)) + "%"
	likeCond := cond + " AND " + searchLike
	rest, restMore, err := db.listHistoryPage(ctx, workspaceID, f, likeCond, append(slices.Clone(args), pat, pat), "history_out_of_order", " AND out_of_order = 1", size)
	if err != nil {
		return nil, false, false, err
	}
	// The in-order rows not in the index yet (at most a batch, migration 00037), tested with LIKE.
	order := f.order()
	waiting, err := collect(scanHistory)(db.query(ctx, `SELECT `+historyListCols+` FROM history_fts_pending AS p
		CROSS JOIN history ON history.rowid = p.rowid WHERE `+likeCond+` AND out_of_order = 0`+userCond+` ORDER BY `+order+` LIMIT ?`,
		append(append(append(slices.Clone(args), pat, pat), userArgs...), size+1)...))
	if err != nil {
		return nil, false, false, err
	}
	items = append(append(walked, rest...), waiting...)
	slices.SortFunc(items, func(a, b HistoryItem) int {
		c := cmp.Or(cmp.Compare(a.Seq, b.Seq), strings.Compare(a.ID, b.ID))
		if !f.Ascending {
			c = -c
		}
		return c
	})
	// rest holds at most a page; that it had more means more follow.
	if more = len(items) > size || restMore; len(items) > size {
		items = items[:size]
	}
	return items, more, true, nil
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
