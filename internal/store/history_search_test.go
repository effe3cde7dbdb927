package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestHistorySearchOrder pages through searches whose rows were inserted out of seq order (an
// import, a clock that stepped back, equal seqs) and then in order, in both directions, for the workspace and for a
// member, and compares each walk with the unsearched list filtered by hand. One term matches only
// here (SQLite walks the trigram matches newest first); the other matches 1,200 newer rows of
// another workspace too (SQLite's walk gives up and the page is walked in order).
func TestHistorySearchOrder(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "order@example.com")
		ou, ow := newUser(t, db, "crowd@example.com")
		for _, p := range rand.New(rand.NewPCG(1, 2)).Perm(40) {
			h := hist(w, u, p)
			if p%5 == 4 {
				h.Seq-- // the same seq as row p-1: the tie is broken by id
			}
			if p%4 != 3 {
				h.Text = fmt.Sprintf("The Quick Brown fox %d", p)
			}
			insertHist(t, db, h)
		}
		for i := range 30 { // then rows in seq order, as generations come
			h := hist(w, u, 100+i)
			h.Text = fmt.Sprintf("The Quick Brown fox %d", 100+i)
			insertHist(t, db, h)
		}
		testdb.SeedHistory(t, db, ow.ID, ou.ID, 1200, 1, t0) // "… the quick brown fox jumps …"
		all, _, err := db.ListHistory(ctx, w.ID, store.HistoryFilter{PageSize: 1000})
		must(t, "ListHistory", err)
		for _, term := range []string{"N FOX 1", "quick brown"} {
			var want []string
			for _, h := range all {
				if strings.Contains(strings.ToLower(h.Text), strings.ToLower(term)) {
					want = append(want, h.ID)
				}
			}
			if len(want) < 6 {
				t.Fatalf("%q: only %d rows match", term, len(want))
			}
			for _, asc := range []bool{false, true} {
				for _, member := range []string{"", u.ID} {
					var got []string
					after := ""
					for range 40 {
						page, more, err := db.ListHistory(ctx, w.ID, store.HistoryFilter{PageSize: 4, Search: term, Ascending: asc, StartAfterID: after, VisibleTo: member})
						must(t, "search", err)
						got = append(got, ids(page)...)
						if !more {
							break
						}
						after = page[len(page)-1].ID
					}
					exp := slices.Clone(want)
					if asc {
						slices.Reverse(exp)
					}
					sameIDs(t, fmt.Sprintf("%q asc=%v member=%v", term, asc, member != ""), got, exp)
				}
			}
		}
	})
}
