package store_test

import (
	"context"
	"errors"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestIsolations: rows are scoped by workspace and member; the list pages newest first and
// searches titles with LIKE wildcards taken literally; delete returns the row once.
func TestIsolations(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "iso@example.com")
		_, other := newUser(t, db, "iso-other@example.com")
		add := func(ws, user, id, title string, at int64) {
			t.Helper()
			must(t, "InsertIsolation", db.InTx(ctx, func(tx *store.Tx) error {
				return tx.InsertIsolation(ctx, &store.Isolation{ID: id, WorkspaceID: ws, UserID: user, Title: title,
					Format: "mp3_44100_128", DurationSecs: 2.5, BlobKey: "isolation/" + id + ".mp3", CreatedAt: at})
			}))
		}
		add(w.ID, u.ID, "i1", "Podcast 100%", 100)
		add(w.ID, u.ID, "i2", "lecture", 200)
		add(w.ID, u.ID, "i3", "podcast two", 300)
		add(w.ID, "someone-else", "i4", "podcast of another member", 400)
		add(other.ID, u.ID, "i5", "podcast elsewhere", 500)

		got, err := db.Isolation(ctx, w.ID, "i1")
		if err != nil || got.Title != "Podcast 100%" || got.DurationSecs != 2.5 || got.UserID != u.ID || got.CreatedAt != 100 {
			t.Fatalf("Isolation: %+v %v", got, err)
		}
		if _, err := db.Isolation(ctx, other.ID, "i1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace's isolation: %v", err)
		}
		ids := func(f store.IsolationFilter) ([]string, bool) {
			rows, more, err := db.ListIsolations(ctx, w.ID, f)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, r := range rows {
				out = append(out, r.ID)
			}
			return out, more
		}
		if got, more := ids(store.IsolationFilter{UserID: u.ID, Limit: 2}); len(got) != 2 || got[0] != "i3" || got[1] != "i2" || !more {
			t.Fatalf("page 1: %v %v", got, more)
		}
		if got, more := ids(store.IsolationFilter{UserID: u.ID, Limit: 2, Offset: 2}); len(got) != 1 || got[0] != "i1" || more {
			t.Fatalf("page 2: %v %v", got, more)
		}
		if got, _ := ids(store.IsolationFilter{UserID: u.ID, Limit: 10, Search: "PODCAST"}); len(got) != 2 {
			t.Fatalf("search: %v", got)
		}
		if got, _ := ids(store.IsolationFilter{UserID: u.ID, Limit: 10, Search: "100%"}); len(got) != 1 || got[0] != "i1" {
			t.Fatalf("search with a wildcard: %v", got)
		}
		if got, _ := ids(store.IsolationFilter{UserID: u.ID, Limit: 10, Search: "0_"}); len(got) != 0 {
			t.Fatalf("_ matched as a wildcard: %v", got)
		}

		if _, err := db.DeleteIsolation(ctx, other.ID, "i1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("delete from another workspace: %v", err)
		}
		row, err := db.DeleteIsolation(ctx, w.ID, "i1")
		if err != nil || row.BlobKey != "isolation/i1.mp3" {
			t.Fatalf("delete: %+v %v", row, err)
		}
		if _, err := db.DeleteIsolation(ctx, w.ID, "i1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
	})
}
