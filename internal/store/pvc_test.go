package store_test

import (
	"context"
	"errors"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestPVCState: a professional voice's cloning state is read in its transaction and rewritten;
// a sample's trim, separation and picked speakers are updated; both are scoped by workspace.
func TestPVCState(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		_, w := newUser(t, db, "pvc@example.com")
		_, other := newUser(t, db, "pvc-other@example.com")
		must(t, "create", db.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.CreateVoice(ctx, store.Voice{ID: "vp", WorkspaceID: w.ID, Name: "P", Category: "professional", Labels: "{}", PVC: `{"language":"en"}`}); err != nil {
				return err
			}
			return tx.InsertVoiceSample(ctx, store.VoiceSample{ID: "sp", VoiceID: "vp", WorkspaceID: w.ID, FileName: "a.mp3", MimeType: "audio/mpeg",
				SizeBytes: 1, Hash: "h", DurationSecs: 3, BlobKey: "k", Voiceprint: "{}", CreatedAt: 1})
		}))
		must(t, "update", db.InTx(ctx, func(tx *store.Tx) error {
			v, err := tx.VoiceForUpdate(ctx, w.ID, "vp")
			if err != nil || v.PVC != `{"language":"en"}` {
				t.Fatalf("VoiceForUpdate: %+v %v", v, err)
			}
			if err := tx.SetVoicePVC(ctx, w.ID, "vp", `{"language":"de"}`); err != nil {
				return err
			}
			s, err := tx.VoiceSample(ctx, w.ID, "vp", "sp")
			if err != nil || s.SeparationStatus != "not_started" {
				t.Fatalf("new sample: %+v %v", s, err)
			}
			s.TrimStartMS, s.TrimEndMS, s.SeparationStatus, s.Speakers, s.SelectedSpeakerIDs, s.FileName = 100, 2500, "completed", `{"speaker_0":{}}`, `["speaker_0"]`, "b.mp3"
			return tx.UpdateVoiceSample(ctx, *s)
		}))
		if v, err := db.Voice(ctx, w.ID, "vp"); err != nil || v.PVC != `{"language":"de"}` {
			t.Fatalf("after SetVoicePVC: %+v %v", v, err)
		}
		s, err := db.VoiceSample(ctx, w.ID, "vp", "sp")
		if err != nil || s.TrimStartMS != 100 || s.TrimEndMS != 2500 || s.SeparationStatus != "completed" || s.SelectedSpeakerIDs != `["speaker_0"]` || s.FileName != "b.mp3" {
			t.Fatalf("after UpdateVoiceSample: %+v %v", s, err)
		}
		err = db.InTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.VoiceForUpdate(ctx, other.ID, "vp"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("another workspace reads the voice: %v", err)
			}
			if err := tx.SetVoicePVC(ctx, other.ID, "vp", "{}"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("another workspace writes the voice: %v", err)
			}
			s.WorkspaceID = other.ID
			if err := tx.UpdateVoiceSample(ctx, *s); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("another workspace writes the sample: %v", err)
			}
			return nil
		})
		must(t, "cross-workspace", err)
	})
}
