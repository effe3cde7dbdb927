package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestVoiceSamples: a workspace voice's samples are listed in the order they were added, scoped by
// workspace; deleting one or all works once; voices count by category; the add/edit counter
// stops at its maximum and starts again with the next period.
func TestVoiceSamples(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		_, w := newUser(t, db, "vs@example.com")
		_, other := newUser(t, db, "vs-other@example.com")
		must(t, "create", db.InTx(ctx, func(tx *store.Tx) error {
			for _, v := range []store.Voice{
				{ID: "va", WorkspaceID: w.ID, Name: "A", Category: "cloned", Labels: "{}", Prosody: "{}"},
				{ID: "vb", WorkspaceID: w.ID, Name: "B", Category: "generated", Labels: "{}", Prosody: "{}"},
				{ID: "vc", WorkspaceID: w.ID, Name: "C", Category: "professional", Labels: "{}", Prosody: "{}"},
			} {
				if err := tx.CreateVoice(ctx, v); err != nil {
					return err
				}
			}
			for i, id := range []string{"s-z", "s-a", "s-m"} { // ids out of order: position decides
				if err := tx.InsertVoiceSample(ctx, store.VoiceSample{ID: id, VoiceID: "va", WorkspaceID: w.ID, FileName: id + ".mp3",
					MimeType: "audio/mpeg", SizeBytes: 10, Hash: "h", DurationSecs: 1.25, RemoveBackgroundNoise: i == 1,
					BlobKey: "k/" + id, Voiceprint: "{}", Position: i, CreatedAt: 100}); err != nil {
					return err
				}
			}
			return nil
		}))
		got, err := db.VoiceSamples(ctx, w.ID, "va")
		if err != nil || len(got) != 3 || got[0].ID != "s-z" || got[2].ID != "s-m" || !got[1].RemoveBackgroundNoise || got[0].DurationSecs != 1.25 {
			t.Fatalf("VoiceSamples: %+v %v", got, err)
		}
		if got, _ := db.VoiceSamples(ctx, other.ID, "va"); len(got) != 0 {
			t.Fatalf("another workspace sees %d samples", len(got))
		}
		if _, err := db.VoiceSample(ctx, other.ID, "va", "s-a"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace's sample: %v", err)
		}
		if s, err := db.VoiceSample(ctx, w.ID, "va", "s-a"); err != nil || s.BlobKey != "k/s-a" {
			t.Fatalf("VoiceSample: %+v %v", s, err)
		}
		by, err := db.VoiceSamplesOf(ctx, w.ID, []string{"va", "vb"})
		if err != nil || len(by["va"]) != 3 || len(by["vb"]) != 0 {
			t.Fatalf("VoiceSamplesOf: %v %v", by, err)
		}
		if n, _ := db.CountWorkspaceVoices(ctx, w.ID, "cloned", "generated"); n != 2 {
			t.Fatalf("slot voices: %d", n)
		}
		must(t, "delete one", db.InTx(ctx, func(tx *store.Tx) error { return tx.DeleteVoiceSample(ctx, w.ID, "va", "s-a") }))
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.DeleteVoiceSample(ctx, other.ID, "va", "s-z") }); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("delete another workspace's sample: %v", err)
		}
		var gone []store.VoiceSample
		must(t, "delete all", db.InTx(ctx, func(tx *store.Tx) error {
			var err error
			gone, err = tx.DeleteVoiceSamples(ctx, w.ID, "va")
			return err
		}))
		if len(gone) != 2 {
			t.Fatalf("DeleteVoiceSamples returned %d", len(gone))
		}

		// The counter: two allowed, the third refused, a new period starts from zero.
		now := time.Now()
		count := func(at time.Time) bool {
			var ok bool
			must(t, "count", db.InTx(ctx, func(tx *store.Tx) error {
				var err error
				ok, err = tx.CountVoiceAddEdit(ctx, w.ID, 2, at)
				return err
			}))
			return ok
		}
		if !count(now) || !count(now) || count(now) {
			t.Fatal("the counter did not stop at 2")
		}
		if ws, _ := db.Workspace(ctx, w.ID, now); ws.VoiceAddEditCount != 2 {
			t.Fatalf("count %d", ws.VoiceAddEditCount)
		}
		later := now.AddDate(0, 1, 1)
		if !count(later) {
			t.Fatal("a new period did not reset the counter")
		}
		if ws, _ := db.Workspace(ctx, w.ID, later); ws.VoiceAddEditCount != 1 {
			t.Fatalf("count after the roll %d", ws.VoiceAddEditCount)
		}
	})
}
