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
// here (SQLite walks the trigram matches newest first); one matches 1,200 newer rows of another
// workspace too (SQLite's walk of the newest 500 finds none of them and walks all the matches);
// the last matches 6,000 newer rows of another workspace (the page is walked in order).
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
		testdb.SeedHistory(t, db, ow.ID, ou.ID, 6000, 1, t0) // "… the quick brown fox jumps … while Rachel reads …" (1 in 5)
		all, _, err := db.ListHistory(ctx, w.ID, store.HistoryFilter{PageSize: 1000})
		must(t, "ListHistory", err)
		for _, term := range []string{"N FOX 1", "RACHEL", "quick brown"} {
			var want []string
			for _, h := range all {
				if strings.Contains(strings.ToLower(h.Text), strings.ToLower(term)) || strings.Contains(strings.ToLower(h.VoiceName), strings.ToLower(term)) {
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

// TestHistoryDateOrder pages through date-filtered lists whose rows came out of date order (an
// import in random order, dates that step back, equal seqs, a date far ahead followed by rows
// dated before it), two members' rows mixed, in both directions, for the workspace and for a
// member, with and without a voice filter, and compares each walk with the unfiltered list
// filtered by hand. The rows in date order are read by seq range (migration 00023); every other
// row must still be found.
func TestHistoryDateOrder(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "dates@example.com")
		other, _ := newUser(t, db, "dates-other@example.com")
		add := func(i int, date int64) {
			h := hist(w, u, i)
			h.DateUnix = date
			if i%3 == 0 {
				h.UserID = other.ID
			}
			if i%2 == 0 {
				h.VoiceID = "voice2"
			}
			if i%11 == 5 {
				h.Seq-- // the same seq as row i-1: the tie is broken by id
			}
			insertHist(t, db, h)
		}
		for _, p := range rand.New(rand.NewPCG(3, 4)).Perm(40) { // an import in random order
			add(p, t0.Unix()+int64(p)*10)
		}
		for i := 40; i < 80; i++ { // then generations, some dated behind the one before
			date := t0.Unix() + int64(i)*10
			if i%7 == 3 {
				date -= 35
			}
			add(i, date)
		}
		add(80, t0.Unix()+2000) // a clock far ahead: the rows after it are dated before it
		for i := 81; i < 100; i++ {
			add(i, t0.Unix()+int64(i)*10)
		}
		for i := 100; i < 120; i++ { // the clock has passed it
			add(i, t0.Unix()+2000+int64(i)*10)
		}
		all, _, err := db.ListHistory(ctx, w.ID, store.HistoryFilter{PageSize: 1000})
		must(t, "ListHistory", err)
		if len(all) != 120 {
			t.Fatalf("%d rows, want 120", len(all))
		}
		at := func(s int64) int64 { return t0.Unix() + s }
		for _, before := range []int64{0, at(1), at(255), at(603), at(1500), at(2500), at(5000)} {
			for _, after := range []int64{0, at(-1), at(255), at(597), at(1990), at(3100)} {
				for _, voice := range []string{"", "voice2"} {
					for _, member := range []string{"", u.ID} {
						var want []string
						for _, h := range all {
							if (before == 0 || h.DateUnix < before) && (after == 0 || h.DateUnix >= after) &&
								(voice == "" || h.VoiceID == voice) && (member == "" || h.UserID == member) {
								want = append(want, h.ID)
							}
						}
						for _, asc := range []bool{false, true} {
							var got []string
							after2 := ""
							for range 100 {
								page, more, err := db.ListHistory(ctx, w.ID, store.HistoryFilter{PageSize: 9, DateBefore: before, DateAfter: after,
									VoiceID: voice, Ascending: asc, StartAfterID: after2, VisibleTo: member})
								must(t, "ListHistory", err)
								got = append(got, ids(page)...)
								if !more {
									break
								}
								after2 = page[len(page)-1].ID
							}
							exp := slices.Clone(want)
							if asc {
								slices.Reverse(exp)
							}
							sameIDs(t, fmt.Sprintf("before %d after %d voice %q member %v asc %v", before-t0.Unix(), after-t0.Unix(), voice, member != "", asc), got, exp)
						}
					}
				}
			}
		}
	})
}

// TestHistorySearchWaitingRows covers the rows SQLite's trigram index has not taken yet (they
// wait in history_fts_pending until 64 have come, migration 00037): a search finds them, a
// waiting row whose text changes or that is deleted leaves the index consistent, and once a
// batch is indexed the index holds exactly the table's rows (FTS5's integrity check against the
// content table). PostgreSQL runs the same searches.
func TestHistorySearchWaitingRows(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "waiting@example.com")
		search := func(what, term string, want int) {
			t.Helper()
			for _, asc := range []bool{false, true} {
				var got []string
				after := ""
				for range 20 {
					page, more, err := db.ListHistory(ctx, w.ID, store.HistoryFilter{PageSize: 3, Search: term, Ascending: asc, StartAfterID: after})
					must(t, "search", err)
					got = append(got, ids(page)...)
					if !more {
						break
					}
					after = page[len(page)-1].ID
				}
				if len(got) != want || len(slices.Compact(slices.Sorted(slices.Values(got)))) != want {
					t.Fatalf("%s: %q found %d rows (%v), want %d", what, term, len(got), got, want)
				}
			}
		}
		consistent := func(what string) {
			t.Helper()
			if db.Dialect != store.SQLite {
				return
			}
			var waiting int
			must(t, "count waiting", db.SQLiteDB.QueryRowContext(ctx, `SELECT COUNT(*) FROM history_fts_pending`).Scan(&waiting))
			if waiting != 0 {
				t.Fatalf("%s: %d rows still wait for the index", what, waiting)
			}
			rawExec(t, db, `INSERT INTO history_fts(history_fts, rank) VALUES ('integrity-check', 1)`)
		}
		var rows []*store.HistoryItem
		for i := range 10 {
			h := hist(w, u, i)
			h.Text = fmt.Sprintf("A zebra crossing, take %d", i)
			if i == 0 || i == 2 {
				h.State = store.StateProcessing // settled below with part of its text
			}
			insertHist(t, db, h)
			rows = append(rows, h)
		}
		search("ten waiting rows", "ZEBRA", 10)
		// A waiting row's text changes (a cut stream keeps what was said), another goes.
		must(t, "settle", db.InTx(ctx, func(tx *store.Tx) error {
			return tx.SettleHistory(ctx, w.ID, rows[0].ID, "A ze", 4, "", "")
		}))
		must(t, "delete", db.InTx(ctx, func(tx *store.Tx) error { return tx.DeleteHistoryRow(ctx, w.ID, rows[1].ID) }))
		search("a waiting row changed and one deleted", "zebra", 8)
		// 55 more rows make 64 inserts (one deleted): the batch is indexed.
		for i := range 55 {
			h := hist(w, u, 100+i)
			if i%11 == 0 {
				h.Text = "zebras again"
			}
			insertHist(t, db, h)
			rows = append(rows, h)
		}
		search("after the batch", "zebra", 13)
		consistent("after the batch")
		// Indexed rows change and go as before.
		must(t, "settle", db.InTx(ctx, func(tx *store.Tx) error {
			return tx.SettleHistory(ctx, w.ID, rows[2].ID, "A", 1, "", "")
		}))
		must(t, "delete", db.InTx(ctx, func(tx *store.Tx) error { return tx.DeleteHistoryRow(ctx, w.ID, rows[3].ID) }))
		search("indexed rows changed and deleted", "zebra", 11)
		consistent("indexed rows changed and deleted")
	})
}
