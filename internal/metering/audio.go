package metering

import (
	"context"
	"math"
	"time"

	"timbre/internal/store"
)

// Charging seconds of audio (speech to text, forced alignment, the voice isolator): the ledger
// counts whole seconds, rounded up, per channel; the reservation is made in the caller's
// transaction, touched while the work runs (an hour of audio takes minutes, and SettleStale
// must not settle it meanwhile), then committed, or refunded on its own when the work failed.

// AudioUnits is seconds of audio as the ledger counts them: whole seconds, rounded up, times
// the channels charged (at least one).
func AudioUnits(seconds float64, channels int) int64 {
	return int64(math.Ceil(seconds)) * int64(max(1, channels))
}

// ReserveAudio reserves c for seconds of audio (channels of it) inside tx: c's Kind and Units
// are set here. A reservation that does not fit is the API's quota_exceeded error.
func ReserveAudio(ctx context.Context, tx *store.Tx, c Charge, seconds float64, channels int, now time.Time) (*Reservation, error) {
	c.Kind, c.Units = Seconds, AudioUnits(seconds, channels)
	r, err := Reserve(ctx, tx, c, now)
	if err != nil {
		return nil, QuotaAPIError(err)
	}
	return r, nil
}

// HeartbeatEvery is how often KeepAlive touches a reservation (well inside SettleStale's limit).
const HeartbeatEvery = 30 * time.Second

// KeepAlive touches r's ledger entry every HeartbeatEvery (recording nothing delivered) until
// stop is called, so that long work is not settled as stale meanwhile.
func KeepAlive(ctx context.Context, db ProgressWriter, r *Reservation, now func() time.Time) (stop func()) {
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(HeartbeatEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				_ = db.LedgerProgress(context.WithoutCancel(ctx), r.WorkspaceID, r.ID, 0, 0, now())
			}
		}
	}()
	return func() { close(done) }
}

// TxRunner runs a function in a database transaction.
type TxRunner interface {
	InTx(ctx context.Context, fn func(tx *store.Tx) error) error
}

// RefundAlone refunds r in a transaction of its own after the work failed: it runs even when
// ctx (the request's) is done, within ten seconds of its own.
func RefundAlone(ctx context.Context, db TxRunner, r *Reservation, now time.Time) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return db.InTx(ctx, func(tx *store.Tx) error {
		_, err := Refund(ctx, tx, r, now)
		return err
	})
}
