package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"timbre/internal/errs"
	"time"
)

// Ledger entry states: reserved while the work runs, then settled once.
const (
	LedgerReserved  = "reserved"  // units held against the quotas; nothing settled yet
	LedgerCommitted = "committed" // settled: delivered_credits charged, the rest given back
	LedgerRefunded  = "refunded"  // settled: nothing delivered, everything given back
)

// LedgerEntry is one reservation in the metering ledger and, once settled, what it cost.
type LedgerEntry struct {
	ID               string
	WorkspaceID      string
	UserID           string
	APIKeyID         string
	VoiceID          string
	ModelID          string
	Product          string
	UnitKind         string
	Units            int64 // reserved, in UnitKind
	Credits          int64 // reserved, counted against the quotas
	DeliveredUnits   int64
	DeliveredCredits int64
	State            string
	HistoryID        string
	PeriodStartUnix  int64 // the workspace period the credits were counted in
	CreatedAtUnix    int64
	HeartbeatUnix    int64 // last sign of life of the work (reservation or progress)
	SettledAtUnix    int64 // 0 while reserved
}

const ledgerCols = `id, workspace_id, user_id, api_key_id, voice_id, model_id, product, unit_kind, units, credits,
	delivered_units, delivered_credits, state, history_id, period_start_unix, created_at_unix, heartbeat_unix, settled_at_unix`

func scanLedger(row rowScanner) (*LedgerEntry, error) {
	e := &LedgerEntry{}
	var settled sql.NullInt64
	err := row.Scan(&e.ID, &e.WorkspaceID, &e.UserID, &e.APIKeyID, &e.VoiceID, &e.ModelID, &e.Product, &e.UnitKind, &e.Units, &e.Credits,
		&e.DeliveredUnits, &e.DeliveredCredits, &e.State, &e.HistoryID, &e.PeriodStartUnix, &e.CreatedAtUnix, &e.HeartbeatUnix, &settled)
	if err != nil {
		return nil, notFound(err)
	}
	e.SettledAtUnix = settled.Int64
	return e, nil
}

// ErrMemberQuotaExceeded is returned by ChargeMember when a charge would pass the member's limit.
var ErrMemberQuotaExceeded = errs.New(errs.Quota, "quota_exceeded", "You have reached your own character limit in this workspace.")

// ChargeWorkspace is Charge that also returns the workspace's current period start (after the
// roll-over), which the ledger records so a refund in a later period leaves that period alone.
func (tx *Tx) ChargeWorkspace(ctx context.Context, workspaceID string, n, limit int64, now time.Time) (from, to, periodStart int64, err error) {
	if err := tx.rollPeriod(ctx, workspaceID, now); err != nil {
		return 0, 0, 0, err
	}
	q := `UPDATE workspaces SET character_count = character_count + ? WHERE id = ? AND (CAST(? AS BIGINT) < 0 OR character_count + ? <= CAST(? AS BIGINT)) RETURNING character_count, period_start_unix`
	err = tx.queryRow(ctx, q, n, workspaceID, limit, n, limit).Scan(&to, &periodStart)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, 0, ErrQuotaExceeded
	}
	if err != nil {
		return 0, 0, 0, err
	}
	return to - n, to, periodStart, nil
}

// ChargeMember adds n to the member's count for the workspace period starting at period (after
// the workspace was charged), within the member's own limit if one is set; ErrMemberQuotaExceeded
// changes nothing. A user who is not a member (or no longer) is not charged.
func (tx *Tx) ChargeMember(ctx context.Context, workspaceID, userID string, n, period int64) error {
	const current = `(CASE WHEN period_start_unix = CAST(? AS BIGINT) THEN character_count ELSE 0 END)`
	res, err := tx.exec(ctx, `UPDATE workspace_members SET character_count = `+current+` + CAST(? AS BIGINT), period_start_unix = ?
		WHERE workspace_id = ? AND user_id = ? AND (character_limit IS NULL OR `+current+` + CAST(? AS BIGINT) <= character_limit)`,
		period, n, period, workspaceID, userID, period, n)
	if err != nil {
		return err
	}
	if changed, err := res.RowsAffected(); err != nil || changed > 0 {
		return err
	}
	var one int
	err = tx.queryRow(ctx, `SELECT 1 FROM workspace_members WHERE workspace_id = ? AND user_id = ?`, workspaceID, userID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return ErrMemberQuotaExceeded
}

// MemberUsage reads a member's limit (nil: none) and count in the workspace's current period.
func (tx *Tx) MemberUsage(ctx context.Context, workspaceID, userID string) (limit *int64, used int64, err error) {
	return scanLimitAndUsed(tx.queryRow(ctx, `SELECT m.character_limit, CASE WHEN m.period_start_unix = w.period_start_unix THEN m.character_count ELSE 0 END
		FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id WHERE m.workspace_id = ? AND m.user_id = ?`, workspaceID, userID))
}

// scanLimitAndUsed reads a (nullable limit, count in the current period) row: a key's or a
// member's own allowance.
func scanLimitAndUsed(row *sql.Row) (limit *int64, used int64, err error) {
	var l sql.NullInt64
	if err := row.Scan(&l, &used); err != nil {
		return nil, 0, notFound(err)
	}
	if l.Valid {
		limit = &l.Int64
	}
	return limit, used, nil
}

// SetMemberCharacterLimit sets a member's own quota per period (nil removes it).
func (db *DB) SetMemberCharacterLimit(ctx context.Context, workspaceID, userID string, limit *int64) error {
	var l any
	if limit != nil {
		l = *limit
	}
	return affected(db.exec(ctx, `UPDATE workspace_members SET character_limit = ? WHERE workspace_id = ? AND user_id = ?`, l, workspaceID, userID))
}

// InsertLedger records a reservation inside the transaction that charged it.
func (tx *Tx) InsertLedger(ctx context.Context, e *LedgerEntry) error {
	_, err := tx.exec(ctx, `INSERT INTO metering_ledger (`+ledgerCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
		e.ID, e.WorkspaceID, e.UserID, e.APIKeyID, e.VoiceID, e.ModelID, e.Product, e.UnitKind, e.Units, e.Credits,
		e.DeliveredUnits, e.DeliveredCredits, e.State, e.HistoryID, e.PeriodStartUnix, e.CreatedAtUnix, e.HeartbeatUnix)
	return err
}

// LedgerProgress records what an open reservation has delivered so far (and that its work is
// alive), so that a crash is settled for what was delivered. A settled entry is left alone.
func (db *DB) LedgerProgress(ctx context.Context, workspaceID, id string, units, credits int64, now time.Time) error {
	_, err := db.exec(ctx, `UPDATE metering_ledger SET delivered_units = ?, delivered_credits = ?, heartbeat_unix = ? WHERE workspace_id = ? AND id = ? AND state = ?`,
		units, credits, now.Unix(), workspaceID, id, LedgerReserved)
	return err
}

// SettleLedger settles an open reservation inside tx: it records what was delivered and gives
// the rest of the reserved credits back to the workspace, the key and the member (in the period
// they were counted in; a later period is not touched). It returns the settled entry, or nil
// when the entry was already settled (by a concurrent settler), in which case nothing changes.
func (tx *Tx) SettleLedger(ctx context.Context, workspaceID, id string, units, credits int64, now time.Time) (*LedgerEntry, error) {
	state := LedgerCommitted
	if credits == 0 && units == 0 {
		state = LedgerRefunded
	}
	e, err := scanLedger(tx.queryRow(ctx, `UPDATE metering_ledger SET state = ?, delivered_units = ?, delivered_credits = CASE WHEN credits < ? THEN credits ELSE ? END, settled_at_unix = ?
		WHERE workspace_id = ? AND id = ? AND state = ? RETURNING `+ledgerCols,
		state, units, credits, credits, now.Unix(), workspaceID, id, LedgerReserved))
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	back := e.Credits - e.DeliveredCredits
	if back <= 0 {
		return e, nil
	}
	const give = `character_count = CASE WHEN character_count >= CAST(? AS BIGINT) THEN character_count - CAST(? AS BIGINT) ELSE 0 END`
	if _, err := tx.exec(ctx, `UPDATE workspaces SET `+give+` WHERE id = ? AND period_start_unix = ?`, back, back, workspaceID, e.PeriodStartUnix); err != nil {
		return nil, err
	}
	if e.APIKeyID != "" {
		if _, err := tx.exec(ctx, `UPDATE api_keys SET `+give+` WHERE workspace_id = ? AND id = ? AND period_start_unix = ?`, back, back, workspaceID, e.APIKeyID, e.PeriodStartUnix); err != nil {
			return nil, err
		}
	}
	if e.UserID != "" {
		if _, err := tx.exec(ctx, `UPDATE workspace_members SET `+give+` WHERE workspace_id = ? AND user_id = ? AND period_start_unix = ?`, back, back, workspaceID, e.UserID, e.PeriodStartUnix); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// LedgerEntry reads one entry of the workspace.
func (db *DB) LedgerEntry(ctx context.Context, workspaceID, id string) (*LedgerEntry, error) {
	return scanLedger(db.queryRow(ctx, `SELECT `+ledgerCols+` FROM metering_ledger WHERE workspace_id = ? AND id = ?`, workspaceID, id))
}

// StaleLedger lists open reservations whose work gave no sign of life since before.
func (db *DB) StaleLedger(ctx context.Context, before time.Time, limit int) ([]LedgerEntry, error) {
	return collect(scanLedger)(db.query(ctx, `SELECT `+ledgerCols+` FROM metering_ledger WHERE state = ? AND heartbeat_unix < ? ORDER BY heartbeat_unix LIMIT ?`,
		LedgerReserved, before.Unix(), limit))
}

// UsageGroup is what ledger usage is summed by.
type UsageGroup string

const (
	UsageByProduct UsageGroup = "product"
	UsageByDay     UsageGroup = "day"
	UsageByAPIKey  UsageGroup = "api_key_id"
	UsageByVoice   UsageGroup = "voice_id"
	UsageByUser    UsageGroup = "user_id"
	UsageByModel   UsageGroup = "model_id"
)

// UsageRow is one group's total.
type UsageRow struct {
	Key     string // the group's value; for UsageByDay the day's start (unix seconds, UTC) in decimal
	Units   int64  // delivered units (mixed kinds unless the query names a product)
	Credits int64  // credits charged
}

// LedgerUsage sums the settled and open entries of a workspace created in [from, to) by group,
// optionally for one product only. Open reservations count what they delivered so far.
func (db *DB) LedgerUsage(ctx context.Context, workspaceID string, from, to time.Time, product string, by UsageGroup) ([]UsageRow, error) {
	key := string(by)
	switch by {
	case UsageByProduct, UsageByAPIKey, UsageByVoice, UsageByUser, UsageByModel:
	case UsageByDay:
		key = `CAST(created_at_unix - created_at_unix % 86400 AS TEXT)`
	default:
		return nil, fmt.Errorf("store: unknown usage group %q", by)
	}
	q := `SELECT ` + key + ` AS k, COALESCE(SUM(delivered_units), 0), COALESCE(SUM(delivered_credits), 0) FROM metering_ledger
		WHERE workspace_id = ? AND created_at_unix >= ? AND created_at_unix < ? AND (? = '' OR product = ?) GROUP BY k ORDER BY k`
	return collect(func(r rowScanner) (*UsageRow, error) {
		u := &UsageRow{}
		return u, r.Scan(&u.Key, &u.Units, &u.Credits)
	})(db.query(ctx, q, workspaceID, from.Unix(), to.Unix(), product, product))
}

// SettleHistory finishes a history row whose generation was cut short: it keeps the part that
// was delivered (text, the count's end and state created, with the audio stored at blobKey, ""
// when none survived).
func (tx *Tx) SettleHistory(ctx context.Context, workspaceID, id, text string, charTo int64, blobKey, alignments string) error {
	_, err := tx.exec(ctx, `UPDATE history SET state = ?, text = ?, char_to = ?, blob_key = ?, alignments = ? WHERE workspace_id = ? AND id = ? AND state = ?`,
		StateCreated, text, charTo, blobKey, alignments, workspaceID, id, StateProcessing)
	return err
}

// ProcessingHistory reads a history row still being generated (ErrNotFound otherwise).
func (tx *Tx) ProcessingHistory(ctx context.Context, workspaceID, id string) (*HistoryItem, error) {
	return scanHistory(tx.queryRow(ctx, `SELECT `+historyCols+` FROM history WHERE workspace_id = ? AND id = ? AND state = ?`, workspaceID, id, StateProcessing))
}

// UsagePoint is one series' total in one time bucket.
type UsagePoint struct {
	Bucket  int64  // the bucket's start, unix seconds
	Series  string // the group's value ("" when not grouped)
	Units   int64
	Credits int64
	Count   int64 // ledger entries
}

// UsageQuery selects ledger entries of a workspace for LedgerSeries.
type UsageQuery struct {
	WorkspaceID   string
	UserID        string // "" for every user
	Product       string // "" for every product
	From, To      time.Time
	BucketSeconds int64      // hour or day buckets, aligned to UTC
	By            UsageGroup // "" for one series
}

// LedgerSeries sums the selected entries by time bucket and group.
func (db *DB) LedgerSeries(ctx context.Context, q UsageQuery) ([]UsagePoint, error) {
	series := `''`
	switch q.By {
	case "":
	case UsageByProduct, UsageByAPIKey, UsageByVoice, UsageByUser, UsageByModel:
		series = string(q.By)
	default:
		return nil, fmt.Errorf("store: unknown usage group %q", q.By)
	}
	if q.BucketSeconds <= 0 {
		return nil, fmt.Errorf("store: bucket of %d seconds", q.BucketSeconds)
	}
	sql := `SELECT created_at_unix - created_at_unix % CAST(? AS BIGINT) AS b, ` + series + ` AS s,
		COALESCE(SUM(delivered_units), 0), COALESCE(SUM(delivered_credits), 0), COUNT(*) FROM metering_ledger
		WHERE workspace_id = ? AND created_at_unix >= ? AND created_at_unix < ? AND (? = '' OR user_id = ?) AND (? = '' OR product = ?)
		GROUP BY b, s ORDER BY b, s`
	return collect(func(r rowScanner) (*UsagePoint, error) {
		p := &UsagePoint{}
		return p, r.Scan(&p.Bucket, &p.Series, &p.Units, &p.Credits, &p.Count)
	})(db.query(ctx, sql, q.BucketSeconds, q.WorkspaceID, q.From.Unix(), q.To.Unix(), q.UserID, q.UserID, q.Product, q.Product))
}

// OrphanedHistory lists history rows still processing since before that no open reservation is
// producing: rows a crashed process left before generations were metered through the ledger.
func (db *DB) OrphanedHistory(ctx context.Context, before time.Time, limit int) ([]HistoryItem, error) {
	return collect(scanHistory)(db.query(ctx, `SELECT `+historyCols+` FROM history WHERE state = ? AND date_unix < ?
		AND NOT EXISTS (SELECT 1 FROM metering_ledger l WHERE l.state = ? AND l.history_id = history.id) ORDER BY date_unix LIMIT ?`,
		StateProcessing, before.Unix(), LedgerReserved, limit))
}

// DropOrphanedHistory deletes such a row, if it is still processing, and gives its characters
// back to the workspace when it was charged in the current period. It reports whether it did.
func (tx *Tx) DropOrphanedHistory(ctx context.Context, h *HistoryItem) (bool, error) {
	res, err := tx.exec(ctx, `DELETE FROM history WHERE workspace_id = ? AND id = ? AND state = ?`, h.WorkspaceID, h.ID, StateProcessing)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	back := h.CharTo - h.CharFrom
	_, err = tx.exec(ctx, `UPDATE workspaces SET character_count = CASE WHEN character_count >= CAST(? AS BIGINT) THEN character_count - CAST(? AS BIGINT) ELSE 0 END
		WHERE id = ? AND period_start_unix <= ?`, back, back, h.WorkspaceID, h.DateUnix)
	return true, err
}
