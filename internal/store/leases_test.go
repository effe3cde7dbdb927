package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

func TestLeases(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		_, w := newUser(t, db, "lease@example.com")
		_, other := newUser(t, db, "other@example.com")
		a, n, err := db.AcquireLease(ctx, w.ID, "p1", 2, time.Minute)
		if err != nil || a == "" || n != 1 {
			t.Fatalf("first lease: %q %d %v", a, n, err)
		}
		b, n, err := db.AcquireLease(ctx, w.ID, "p2", 2, time.Minute)
		if err != nil || b == "" || n != 2 {
			t.Fatalf("second lease: %q %d %v", b, n, err)
		}
		if c, n, err := db.AcquireLease(ctx, w.ID, "p1", 2, time.Minute); err != nil || c != "" || n != 2 {
			t.Fatalf("third lease over a limit of 2: %q %d %v", c, n, err)
		}
		// Another workspace has its own count.
		if c, n, err := db.AcquireLease(ctx, other.ID, "p1", 2, time.Minute); err != nil || c == "" || n != 1 {
			t.Fatalf("other workspace: %q %d %v", c, n, err)
		}
		must(t, "ReleaseLease", db.ReleaseLease(ctx, a))
		if n, _ := db.LiveLeases(ctx, w.ID); n != 1 {
			t.Fatalf("live after release = %d, want 1", n)
		}
		c, _, err := db.AcquireLease(ctx, w.ID, "p1", 2, time.Minute)
		if err != nil || c == "" {
			t.Fatalf("lease after a release: %q %v", c, err)
		}
		must(t, "RenewLease", db.RenewLease(ctx, c, time.Minute))

		// A lease nobody renews lapses: it stops counting and the next acquisition drops it.
		must(t, "ReleaseLease", db.ReleaseLease(ctx, b))
		must(t, "ReleaseLease", db.ReleaseLease(ctx, c))
		short, _, err := db.AcquireLease(ctx, w.ID, "crashed", 1, 300*time.Millisecond)
		if err != nil || short == "" {
			t.Fatalf("short lease: %q %v", short, err)
		}
		if id, _, _ := db.AcquireLease(ctx, w.ID, "p1", 1, time.Minute); id != "" {
			t.Fatal("a live lease did not count")
		}
		time.Sleep(400 * time.Millisecond)
		if n, _ := db.LiveLeases(ctx, w.ID); n != 0 {
			t.Fatalf("lapsed lease still live (%d)", n)
		}
		d, n, err := db.AcquireLease(ctx, w.ID, "p1", 1, time.Minute)
		if err != nil || d == "" || n != 1 {
			t.Fatalf("lease after the other lapsed: %q %d %v", d, n, err)
		}
		if rawCount(t, db, `SELECT COUNT(*) FROM concurrency_leases WHERE holder = 'crashed'`) != 0 {
			t.Error("the lapsed lease's row was not dropped")
		}
		wantErr(t, "RenewLease of a dropped lease", db.RenewLease(ctx, short, time.Minute), store.ErrNotFound)
	})
}

// Many acquisitions at once never exceed the limit (PostgreSQL's advisory lock, SQLite's one
// writer), and each released lease can be taken again.
func TestLeasesUnderConcurrency(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		_, w := newUser(t, db, "race@example.com")
		const limit, workers, rounds = 3, 12, 8
		var held, peak, granted atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < workers; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := 0; r < rounds; r++ {
					id, _, err := db.AcquireLease(ctx, w.ID, "p", limit, time.Minute)
					if err != nil {
						t.Error(err)
						return
					}
					if id == "" {
						continue
					}
					granted.Add(1)
					now := held.Add(1)
					for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
					}
					time.Sleep(2 * time.Millisecond)
					held.Add(-1)
					if err := db.ReleaseLease(ctx, id); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		if peak.Load() > limit {
			t.Fatalf("%d leases held at once, limit %d", peak.Load(), limit)
		}
		if granted.Load() < limit {
			t.Fatalf("only %d leases granted", granted.Load())
		}
		if n, _ := db.LiveLeases(ctx, w.ID); n != 0 {
			t.Fatalf("%d leases left after every release", n)
		}
		t.Logf("%d of %d acquisitions granted, peak %d", granted.Load(), workers*rounds, peak.Load())
	})
}

// BenchmarkLease measures the hot-path cost the limit adds to every speech request: one
// acquisition and one release. The "one-write" case (a rate-limit counter: one autocommitted
// upsert) is the yardstick of a plain write on the same database.
func BenchmarkLease(b *testing.B) {
	for _, d := range testdb.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			db := testdb.Open(b, d)
			ctx := context.Background()
			_, w, err := db.CreateUserWithWorkspace(ctx, "bench@example.com", "x", true, "free", time.Now())
			if err != nil {
				b.Fatal(err)
			}
			b.Run("acquire+release", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					id, _, err := db.AcquireLease(ctx, w.ID, "bench", 15, 30*time.Second)
					if err != nil || id == "" {
						b.Fatal(id, err)
					}
					if err := db.ReleaseLease(ctx, id); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("one-write", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := db.HitRateLimit(ctx, "bench", time.Hour, time.Now()); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
