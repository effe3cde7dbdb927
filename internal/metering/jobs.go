package metering

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
)

// SettleInterval is how often interrupted work is looked for.
const SettleInterval = time.Minute

// SettleArgs asks for stale reservations to be settled (see SettleStale).
type SettleArgs struct{}

// Kind implements river.JobArgs.
func (SettleArgs) Kind() string { return "metering_settle" }

// SettleWorker settles reservations whose work stopped giving signs of life for StaleAfter.
type SettleWorker struct {
	river.WorkerDefaults[SettleArgs]
	DB         Store
	Log        *slog.Logger
	StaleAfter time.Duration
}

// Work implements river.Worker.
func (w *SettleWorker) Work(ctx context.Context, _ *river.Job[SettleArgs]) error {
	n, err := SettleStale(ctx, w.DB, w.StaleAfter, time.Now())
	if n > 0 && w.Log != nil {
		w.Log.Info("settled interrupted work", "reservations", n)
	}
	return err
}

// SettleJob runs SettleWorker every SettleInterval.
func SettleJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(SettleInterval),
		func() (river.JobArgs, *river.InsertOpts) { return SettleArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true})
}
