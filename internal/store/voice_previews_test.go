package store_test

import (
	"context"
	"errors"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestVoicePreviews: a preview is found only in its workspace and only until it expires.
func TestVoicePreviews(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "design@example.com")
		_, other := newUser(t, db, "design-other@example.com")
		must(t, "InsertVoicePreview", db.InTx(ctx, func(tx *store.Tx) error {
			return tx.InsertVoicePreview(ctx, &store.VoicePreview{ID: "p1", WorkspaceID: w.ID, UserID: u.ID, SourceVoiceID: "v1",
				Description: "a deep elderly male voice", Params: `{"engine":"flite"}`, Text: "Hello.", Language: "en", CreatedAt: 100, ExpiresAt: 200})
		}))
		p, err := db.VoicePreview(ctx, w.ID, "p1", 150)
		if err != nil {
			t.Fatal(err)
		}
		if p.UserID != u.ID || p.SourceVoiceID != "v1" || p.Params != `{"engine":"flite"}` || p.Text != "Hello." || p.ExpiresAt != 200 {
			t.Errorf("preview read back as %+v", p)
		}
		if _, err := db.VoicePreview(ctx, other.ID, "p1", 150); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another workspace read the preview: %v", err)
		}
		if _, err := db.VoicePreview(ctx, w.ID, "p1", 200); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("an expired preview was found: %v", err)
		}
	})
}
