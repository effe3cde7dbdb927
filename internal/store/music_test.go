package store_test

import (
	"context"
	"errors"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestSongs: composed songs are scoped by workspace and member, listed newest first, searched by
// title or prompt, and deleted once.
func TestSongs(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "song@example.com")
		_, other := newUser(t, db, "song-other@example.com")
		add := func(ws, user, id, title, prompt string, at int64) {
			t.Helper()
			must(t, "InsertSong", db.InTx(ctx, func(tx *store.Tx) error {
				return tx.InsertSong(ctx, &store.Song{ID: id, WorkspaceID: ws, UserID: user, Title: title, Prompt: prompt, PlanJSON: `{}`,
					Seed: 2147483647, Engine: "fluidsynth", Format: "mp3_44100_128", DurationMs: 30000, Credits: 500, BlobKey: "music/" + id + ".mp3", CreatedAt: at})
			}))
		}
		add(w.ID, u.ID, "s1", "Jazz 100%", "jazz in D minor", 100)
		add(w.ID, u.ID, "s2", "Rock", "loud rock", 200)
		add(w.ID, "someone-else", "s3", "Jazz of another", "jazz", 300)
		add(other.ID, u.ID, "s4", "Jazz elsewhere", "jazz", 400)
		got, err := db.Song(ctx, w.ID, "s1")
		if err != nil || got.Seed != 2147483647 || got.DurationMs != 30000 || got.Prompt != "jazz in D minor" || got.Credits != 500 {
			t.Fatalf("Song: %+v %v", got, err)
		}
		if _, err := db.Song(ctx, other.ID, "s1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace's song: %v", err)
		}
		rows, more, err := db.ListSongs(ctx, w.ID, store.SongFilter{UserID: u.ID, Limit: 1})
		if err != nil || len(rows) != 1 || rows[0].ID != "s2" || !more {
			t.Fatalf("page: %+v %v %v", rows, more, err)
		}
		rows, _, _ = db.ListSongs(ctx, w.ID, store.SongFilter{UserID: u.ID, Limit: 10, Search: "D MINOR"})
		if len(rows) != 1 || rows[0].ID != "s1" {
			t.Fatalf("search by prompt: %+v", rows)
		}
		if rows, _, _ = db.ListSongs(ctx, w.ID, store.SongFilter{UserID: u.ID, Limit: 10, Search: "0_"}); len(rows) != 0 {
			t.Fatalf("_ matched as a wildcard: %+v", rows)
		}
		if _, err := db.DeleteSong(ctx, other.ID, "s1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("delete from another workspace: %v", err)
		}
		if row, err := db.DeleteSong(ctx, w.ID, "s1"); err != nil || row.BlobKey != "music/s1.mp3" {
			t.Fatalf("delete: %+v %v", row, err)
		}
		if _, err := db.DeleteSong(ctx, w.ID, "s1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
	})
}
