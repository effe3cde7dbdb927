package metering_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"timbre/internal/errs"
	"timbre/internal/metering"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

func TestAudioUnits(t *testing.T) {
	for _, c := range []struct {
		secs  float64
		chans int
		want  int64
	}{{0.1, 1, 1}, {1, 1, 1}, {1.001, 1, 2}, {59.5, 0, 60}, {10.2, 3, 33}} {
		if got := metering.AudioUnits(c.secs, c.chans); got != c.want {
			t.Errorf("AudioUnits(%v, %d) = %d, want %d", c.secs, c.chans, got, c.want)
		}
	}
}

// ReserveAudio records seconds (rounded up, per channel); one that does not fit is the API's
// quota error and charges nothing; RefundAlone gives it back even after the request is gone.
func TestReserveAudioAndRefundAlone(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, "audio@example.com", nil)
		now := t0.Add(time.Hour)
		c := metering.Charge{WorkspaceID: f.ws.ID, UserID: f.user.ID, Product: metering.Isolation, Kind: metering.Characters, Units: 999, Credits: 40, Allowance: 100}
		var r *metering.Reservation
		err := db.InTx(ctx, func(tx *store.Tx) error {
			var err error
			r, err = metering.ReserveAudio(ctx, tx, c, 2.4, 2, now)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		e, err := db.LedgerEntry(ctx, f.ws.ID, r.ID)
		if err != nil || e.UnitKind != "seconds" || e.Units != 6 || e.Credits != 40 || e.Product != "isolation" {
			t.Fatalf("entry %+v, %v", e, err)
		}
		c.Credits = 61
		err = db.InTx(ctx, func(tx *store.Tx) error {
			_, err := metering.ReserveAudio(ctx, tx, c, 1, 1, now)
			return err
		})
		var de *errs.Error
		if !errors.As(err, &de) || de.Code != "quota_exceeded" {
			t.Fatalf("over quota: %v", err)
		}
		gone, cancel := context.WithCancel(ctx)
		cancel()
		if err := metering.RefundAlone(gone, db, r, now); err != nil {
			t.Fatal(err)
		}
		if e, _ := db.LedgerEntry(ctx, f.ws.ID, r.ID); e.State != store.LedgerRefunded {
			t.Fatalf("after RefundAlone: %+v", e)
		}
		if ws, _, _ := f.counts(t, now); ws != 0 {
			t.Fatalf("workspace count %d after the refund, want 0", ws)
		}
	})
}
