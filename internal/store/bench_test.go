package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// BenchmarkListHistory measures ListHistory(page_size 100) on a workspace holding 100,000 history
// rows (plus 20,000 rows in four other workspaces), on each database: the first page, and a page
// 90,000 rows deep reached through start_after. Each dialect gets its own freshly seeded database.
// Besides ns/op it reports the p50 and p99 latency of single calls.
//
//	go test ./internal/store/ -run '^$' -bench BenchmarkListHistory -benchtime 2000x
func BenchmarkListHistory(b *testing.B) {
	const rows, others, pageSize = 100_000, 5_000, 100
	for _, d := range testdb.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			db := testdb.Open(b, d)
			ctx := context.Background()
			begin := time.Now()
			u, w, err := db.CreateUserWithWorkspace(ctx, "bench@example.com", "x", true, "pro", t0)
			if err != nil {
				b.Fatal(err)
			}
			for i := range 4 {
				ou, ow, err := db.CreateUserWithWorkspace(ctx, fmt.Sprintf("other%d@example.com", i), "x", true, "free", t0)
				if err != nil {
					b.Fatal(err)
				}
				testdb.SeedHistory(b, db, ow.ID, ou.ID, others, 1, t0)
			}
			ids := testdb.SeedHistory(b, db, w.ID, u.ID, rows, 1, t0)
			b.Logf("%s: seeded %d rows in %s", d, rows+4*others, time.Since(begin).Round(time.Millisecond))

			// Newest first: position p (0-based) is ids[rows-1-p]; the deep page starts after p = 89,999.
			deepAfter := ids[rows-1-89_999]
			cases := []struct {
				name  string
				f     store.HistoryFilter
				first string // id the page must start with
			}{
				{"first", store.HistoryFilter{PageSize: pageSize}, ids[rows-1]},
				{"deep", store.HistoryFilter{PageSize: pageSize, StartAfterID: deepAfter}, ids[rows-1-90_000]},
			}
			for _, c := range cases {
				b.Run(c.name, func(b *testing.B) {
					var durs []time.Duration
					for b.Loop() {
						t := time.Now()
						page, more, err := db.ListHistory(ctx, w.ID, c.f)
						durs = append(durs, time.Since(t))
						if err != nil {
							b.Fatal(err)
						}
						if len(page) != pageSize || !more || page[0].ID != c.first {
							b.Fatalf("wrong page: %d items, more=%v", len(page), more)
						}
					}
					reportPercentiles(b, durs)
				})
			}
		})
	}
}

func reportPercentiles(b *testing.B, durs []time.Duration) {
	if len(durs) == 0 {
		return
	}
	slices.Sort(durs)
	at := func(p float64) float64 {
		i := int(p * float64(len(durs)-1))
		return float64(durs[i]) / float64(time.Millisecond)
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}
