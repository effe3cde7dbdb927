// Package metering charges every product through one ledger: Reserve holds credits against the
// workspace's allowance for the period, the API key's quota and the member's quota inside the
// caller's transaction; Commit settles what was delivered and gives the rest back; Refund gives
// everything back. Interrupted work (a crashed process) is settled by SettleStale. Usage is
// summed from the ledger.
package metering

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"timbre/internal/errs"
	"timbre/internal/store"
)

// Product is what was metered.
type Product string

const (
	TTS         Product = "tts"
	STT         Product = "stt"
	SFX         Product = "sfx"
	Music       Product = "music"
	Agents      Product = "agents"
	Dubbing     Product = "dubbing"
	VoiceDesign Product = "voice_design"
	Isolation   Product = "isolation" // the voice isolator, in seconds of audio
	STS         Product = "sts"       // speech to speech, in seconds of audio
	Grant       Product = "grant"     // credits bought or granted (Stripe)
)

// Kind is the unit a product is measured in.
type Kind string

const (
	Characters Kind = "characters"
	Seconds    Kind = "seconds"
	Minutes    Kind = "minutes"
	Credits    Kind = "credits"
)

// Charge is a request to reserve Units of Kind for a product, costing Credits against the
// quotas. Allowance is the workspace's credits per period (negative: unlimited).
type Charge struct {
	WorkspaceID, UserID, APIKeyID string
	VoiceID, ModelID              string
	HistoryID                     string // the history row the work produces, if any
	Product                       Product
	Kind                          Kind
	Units                         int64
	Credits                       int64
	Allowance                     int64
}

// Scope names the quota a charge did not fit.
type Scope string

const (
	ScopeWorkspace Scope = "workspace"
	ScopeAPIKey    Scope = "api_key"
	ScopeMember    Scope = "member"
)

// QuotaError says which quota a reservation did not fit and how much of it is left.
type QuotaError struct {
	Scope       Scope
	Limit, Used int64
	Need        int64
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("metering: %s quota exceeded: %d of %d used, %d needed", e.Scope, e.Used, e.Limit, e.Need)
}

// Remaining is what is left of the quota (never negative).
func (e *QuotaError) Remaining() int64 { return max(0, e.Limit-e.Used) }

// Reservation is an open ledger entry.
type Reservation struct {
	ID, WorkspaceID string
	PeriodStart     int64
	From, To        int64 // the workspace's count before and after the charge
}

// Reserve charges c inside tx: the workspace's allowance for the current period (rolling the
// period over if it ended), then the API key's and the member's own quotas where set, and
// records the reservation in the ledger. Each charge is one conditional UPDATE, so concurrent
// reservations are exact on both databases; a *QuotaError leaves tx to be rolled back.
func Reserve(ctx context.Context, tx *store.Tx, c Charge, now time.Time) (*Reservation, error) {
	from, to, period, err := tx.ChargeWorkspace(ctx, c.WorkspaceID, c.Credits, c.Allowance, now)
	if errors.Is(err, store.ErrQuotaExceeded) {
		used, _ := tx.CharacterCount(ctx, c.WorkspaceID)
		return nil, &QuotaError{Scope: ScopeWorkspace, Limit: c.Allowance, Used: used, Need: c.Credits}
	}
	if err != nil {
		return nil, err
	}
	if c.APIKeyID != "" {
		err := tx.ChargeAPIKey(ctx, c.WorkspaceID, c.APIKeyID, c.Credits)
		if errors.Is(err, store.ErrKeyQuotaExceeded) {
			limit, used, _ := tx.APIKeyUsage(ctx, c.WorkspaceID, c.APIKeyID)
			return nil, &QuotaError{Scope: ScopeAPIKey, Limit: deref(limit), Used: used, Need: c.Credits}
		}
		if err != nil {
			return nil, err
		}
	}
	if c.UserID != "" {
		err := tx.ChargeMember(ctx, c.WorkspaceID, c.UserID, c.Credits, period)
		if errors.Is(err, store.ErrMemberQuotaExceeded) {
			limit, used, _ := tx.MemberUsage(ctx, c.WorkspaceID, c.UserID)
			return nil, &QuotaError{Scope: ScopeMember, Limit: deref(limit), Used: used, Need: c.Credits}
		}
		if err != nil {
			return nil, err
		}
	}
	r := &Reservation{ID: store.NewID(), WorkspaceID: c.WorkspaceID, PeriodStart: period, From: from, To: to}
	err = tx.InsertLedger(ctx, &store.LedgerEntry{
		ID: r.ID, WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID, VoiceID: c.VoiceID, ModelID: c.ModelID,
		Product: string(c.Product), UnitKind: string(c.Kind), Units: c.Units, Credits: c.Credits, State: store.LedgerReserved,
		HistoryID: c.HistoryID, PeriodStartUnix: period, CreatedAtUnix: now.Unix(), HeartbeatUnix: now.Unix(),
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// Progress records what an open reservation has delivered so far, so that settling it after a
// crash charges that and refunds the rest. It also keeps the reservation from counting as stale.
func Progress(ctx context.Context, db ProgressWriter, r *Reservation, units, credits int64, now time.Time) error {
	return db.LedgerProgress(ctx, r.WorkspaceID, r.ID, units, credits, now)
}

// Commit settles r inside tx for what was delivered (units, and the credits they cost, at most
// the reserved credits) and gives the rest back. It reports false when r was already settled
// (by SettleStale), in which case nothing changes.
func Commit(ctx context.Context, tx *store.Tx, r *Reservation, units, credits int64, now time.Time) (bool, error) {
	e, err := tx.SettleLedger(ctx, r.WorkspaceID, r.ID, units, credits, now)
	return e != nil, err
}

// Refund settles r inside tx with nothing delivered: every reserved credit goes back.
func Refund(ctx context.Context, tx *store.Tx, r *Reservation, now time.Time) (bool, error) {
	return Commit(ctx, tx, r, 0, 0, now)
}

// SettleStale settles reservations whose work gave no sign of life for staleAfter (their process
// crashed or was killed): each is committed for what it recorded as delivered and the rest is
// refunded. The history row it was producing is deleted when nothing was delivered, and
// otherwise kept, state created, with the text that was delivered (its audio did not survive
// the process). History rows left processing without an open reservation (from before the
// ledger) are deleted and their characters refunded. It returns how many it settled.
func SettleStale(ctx context.Context, db Store, staleAfter time.Duration, now time.Time) (int, error) {
	settled := 0
	for {
		stale, err := db.StaleLedger(ctx, now.Add(-staleAfter), 100)
		if err != nil {
			return settled, err
		}
		if len(stale) == 0 {
			n, err := dropOrphanedHistory(ctx, db, now.Add(-staleAfter))
			return settled + n, err
		}
		for _, e := range stale {
			err := db.InTx(ctx, func(tx *store.Tx) error {
				done, err := tx.SettleLedger(ctx, e.WorkspaceID, e.ID, e.DeliveredUnits, e.DeliveredCredits, now)
				if err != nil || done == nil || done.HistoryID == "" {
					return err
				}
				return settleHistory(ctx, tx, done)
			})
			if err != nil {
				return settled, err
			}
			settled++
		}
	}
}

// dropOrphanedHistory deletes history rows left processing by a process that crashed before
// generations were metered through the ledger, refunding their characters (what was delivered
// is unknown).
func dropOrphanedHistory(ctx context.Context, db Store, before time.Time) (int, error) {
	n := 0
	for {
		rows, err := db.OrphanedHistory(ctx, before, 100)
		if err != nil || len(rows) == 0 {
			return n, err
		}
		for _, h := range rows {
			err := db.InTx(ctx, func(tx *store.Tx) error {
				_, err := tx.DropOrphanedHistory(ctx, &h)
				return err
			})
			if err != nil {
				return n, err
			}
			n++
		}
	}
}

// settleHistory finishes the history row of a settled entry (see SettleStale).
func settleHistory(ctx context.Context, tx *store.Tx, e *store.LedgerEntry) error {
	if e.DeliveredUnits == 0 {
		return tx.DeleteHistoryRow(ctx, e.WorkspaceID, e.HistoryID)
	}
	h, err := tx.ProcessingHistory(ctx, e.WorkspaceID, e.HistoryID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // finished (or deleted) already
	}
	if err != nil {
		return err
	}
	text := h.Text
	if e.UnitKind == string(Characters) {
		text = prefixRunes(text, int(e.DeliveredUnits))
	}
	return tx.SettleHistory(ctx, e.WorkspaceID, e.HistoryID, text, h.CharFrom+e.DeliveredCredits, "", "")
}

// prefixRunes is the first n characters of s.
func prefixRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// Usage sums a workspace's ledger in [from, to) by group, for one product or all ("").
func Usage(ctx context.Context, db Store, workspaceID string, from, to time.Time, product Product, by store.UsageGroup) ([]store.UsageRow, error) {
	return db.LedgerUsage(ctx, workspaceID, from, to, string(product), by)
}

// DeliveredCharacters is the number of characters (runes) in text[:end], for charging the part
// of a text whose audio was delivered.
func DeliveredCharacters(text string, end int) int64 {
	return int64(utf8.RuneCountInString(text[:min(end, len(text))]))
}

// QuotaAPIError turns a reservation that did not fit into the API's quota_exceeded error (any
// other error is returned as it is).
func QuotaAPIError(err error) error {
	var q *QuotaError
	if !errors.As(err, &q) {
		return err
	}
	switch q.Scope {
	case ScopeAPIKey:
		return errs.Errorf(errs.Quota, "quota_exceeded",
			"This request exceeds your API key's quota of %d. You have %d credits remaining on this key, while %d credits are required for this request.",
			q.Limit, q.Remaining(), q.Need)
	case ScopeMember:
		return errs.Errorf(errs.Quota, "quota_exceeded",
			"This request exceeds your own quota in this workspace of %d. You have %d credits remaining, while %d credits are required for this request.",
			q.Limit, q.Remaining(), q.Need)
	}
	return errs.Errorf(errs.Quota, "quota_exceeded",
		"This request exceeds your quota of %d. You have %d credits remaining, while %d credits are required for this request.",
		q.Limit, q.Remaining(), q.Need)
}
