package tts

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"timbre/internal/errs"
	"timbre/internal/store"
)

// DefaultLeaseTTL is how long a concurrency lease outlives a holder that stopped renewing it (a
// crashed process): within this time its slots are free again.
const DefaultLeaseTTL = 30 * time.Second

// Slots limits how many speech requests a workspace runs at once (spec §9 concurrency per tier).
// Each running request holds a lease in the database, so the limit holds across every server
// process sharing it. A request renews its lease while it runs (every TTL/3) and deletes it when
// it ends; a killed process's leases lapse within TTL.
type Slots struct {
	TTL time.Duration // 0 = DefaultLeaseTTL

	once   sync.Once
	holder string // this process, in the lease rows (for operators reading the table)
}

func errTooManyConcurrent(limit int) error {
	return errs.Errorf(errs.RateLimited, "too_many_concurrent_requests",
		"Too many concurrent requests: your plan allows %d at a time. Wait for one to finish or upgrade your plan.", limit)
}

func (s *Slots) ttl() time.Duration {
	if s.TTL > 0 {
		return s.TTL
	}
	return DefaultLeaseTTL
}

// Acquire takes a slot or fails with 429; call release when done. inUse is the workspace's count
// of running requests, this one included.
func (s *Slots) Acquire(ctx context.Context, db Store, workspaceID string, limit int) (release func(), inUse int, err error) {
	s.once.Do(func() { s.holder = store.RandomString(12) })
	ttl := s.ttl()
	id, inUse, err := db.AcquireLease(ctx, workspaceID, s.holder, limit, ttl)
	if err != nil {
		return nil, 0, err
	}
	if id == "" {
		return nil, inUse, errTooManyConcurrent(limit)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // the heartbeat
		defer close(done)
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if err := db.RenewLease(context.Background(), id, ttl); err != nil {
					// The lease is gone or the database unreachable: the request runs on, but
					// another may now take its slot.
					slog.Warn("renewing a concurrency lease failed", "err", err, "workspace_id", workspaceID)
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			<-done
			// The request's context may be cancelled (client gone); the lease must go anyway.
			if err := db.ReleaseLease(context.WithoutCancel(ctx), id); err != nil {
				slog.Warn("releasing a concurrency lease failed; it lapses by itself", "err", err, "workspace_id", workspaceID, "ttl", ttl)
			}
		})
	}, inUse, nil
}
