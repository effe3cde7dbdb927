package store_test

import (
	"context"
	"errors"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestSoundGenerations: rows are scoped by workspace and member; the list pages newest first and
// searches prompts with LIKE wildcards taken literally; delete returns the row once.
func TestSoundGenerations(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "sfx@example.com")
		_, other := newUser(t, db, "sfx-other@example.com")
		add := func(ws, user, id, text string, at int64) {
			t.Helper()
			must(t, "InsertSoundGeneration", db.InTx(ctx, func(tx *store.Tx) error {
				return tx.InsertSoundGeneration(ctx, &store.SoundGeneration{ID: id, WorkspaceID: ws, UserID: user, Text: text,
					Settings: `{"loop":false}`, Format: "mp3_44100_128", DurationSecs: 2.5, BlobKey: "sfx/" + id + ".mp3", CreatedAt: at})
			}))
		}
		add(w.ID, u.ID, "s1", "Rain 100%", 100)
		add(w.ID, u.ID, "s2", "door slam", 200)
		add(w.ID, u.ID, "s3", "rain on a roof", 300)
		add(w.ID, "someone-else", "s4", "rain of another member", 400)
		add(other.ID, u.ID, "s5", "rain elsewhere", 500)

		got, err := db.SoundGeneration(ctx, w.ID, "s1")
		if err != nil || got.Text != "Rain 100%" || got.Settings != `{"loop":false}` || got.DurationSecs != 2.5 || got.CreatedAt != 100 {
			t.Fatalf("SoundGeneration: %+v %v", got, err)
		}
		if _, err := db.SoundGeneration(ctx, other.ID, "s1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace's sound: %v", err)
		}
		ids := func(f store.SoundFilter) ([]string, bool) {
			rows, more, err := db.ListSoundGenerations(ctx, w.ID, f)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, r := range rows {
				out = append(out, r.ID)
			}
			return out, more
		}
		if got, more := ids(store.SoundFilter{UserID: u.ID, Limit: 2}); len(got) != 2 || got[0] != "s3" || got[1] != "s2" || !more {
			t.Fatalf("page 1: %v %v", got, more)
		}
		if got, more := ids(store.SoundFilter{UserID: u.ID, Limit: 2, Offset: 2}); len(got) != 1 || got[0] != "s1" || more {
			t.Fatalf("page 2: %v %v", got, more)
		}
		if got, _ := ids(store.SoundFilter{UserID: u.ID, Limit: 10, Search: "RAIN"}); len(got) != 2 {
			t.Fatalf("search: %v", got)
		}
		if got, _ := ids(store.SoundFilter{UserID: u.ID, Limit: 10, Search: "0_"}); len(got) != 0 {
			t.Fatalf("_ matched as a wildcard: %v", got)
		}
		if _, err := db.DeleteSoundGeneration(ctx, other.ID, "s1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("delete from another workspace: %v", err)
		}
		if row, err := db.DeleteSoundGeneration(ctx, w.ID, "s1"); err != nil || row.BlobKey != "sfx/s1.mp3" {
			t.Fatalf("delete: %+v %v", row, err)
		}
		if _, err := db.DeleteSoundGeneration(ctx, w.ID, "s1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
	})
}
