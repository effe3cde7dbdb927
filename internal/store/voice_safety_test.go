package store_test

import (
	"context"
	"errors"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestVoiceSafety: a control is set on an existing voice only, read back, shown on the voice,
// cleared by NONE; a workspace's captcha counts failures of the sentence issued and records a
// pass, and stays its own.
func TestVoiceSafety(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		_, w := newUser(t, db, "safety@example.com")
		_, other := newUser(t, db, "safety-other@example.com")
		must(t, "CreateVoice", db.InTx(ctx, func(tx *store.Tx) error {
			return tx.CreateVoice(ctx, store.Voice{ID: "sv1", WorkspaceID: w.ID, Name: "Mine", Category: "cloned", Labels: "{}",
				Engine: "flite", EngineVoice: "slt", Language: "en", Prosody: "{}", CreatedAt: 1})
		}))
		if err := db.SetVoiceSafety(ctx, "nope", store.SafetyBan, 10); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a control was set on a voice that does not exist: %v", err)
		}
		if s, err := db.VoiceSafetyOf(ctx, "sv1"); err != nil || s.Control != store.SafetyNone {
			t.Fatalf("fresh voice safety = %+v, %v", s, err)
		}
		must(t, "SetVoiceSafety", db.SetVoiceSafety(ctx, "sv1", store.SafetyBan, 10))
		must(t, "SetVoiceSafety", db.SetVoiceSafety(ctx, "sv1", store.SafetyCaptcha, 20))
		if s, err := db.VoiceSafetyOf(ctx, "sv1"); err != nil || s.Control != store.SafetyCaptcha || s.SetAt != 20 {
			t.Fatalf("voice safety = %+v, %v", s, err)
		}
		if v, err := db.Voice(ctx, w.ID, "sv1"); err != nil || v.SafetyControl != store.SafetyCaptcha {
			t.Fatalf("voice read as %+v, %v", v, err)
		}
		if v, err := db.OperatorVoice(ctx, "sv1"); err != nil || v.SafetyControl != store.SafetyCaptcha || v.WorkspaceID != w.ID {
			t.Fatalf("operator read %+v, %v", v, err)
		}

		if _, err := db.VoiceCaptchaOf(ctx, w.ID, "sv1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("captcha before one was issued: %v", err)
		}
		must(t, "IssueVoiceCaptcha", db.IssueVoiceCaptcha(ctx, w.ID, "sv1", "the birch canoe", 30))
		if n, err := db.FailVoiceCaptcha(ctx, w.ID, "sv1", 30); err != nil || n != 1 {
			t.Fatalf("first failure = %d, %v", n, err)
		}
		if n, err := db.FailVoiceCaptcha(ctx, w.ID, "sv1", 30); err != nil || n != 2 {
			t.Fatalf("second failure = %d, %v", n, err)
		}
		if _, err := db.FailVoiceCaptcha(ctx, w.ID, "sv1", 29); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a failure counted against an older sentence: %v", err)
		}
		must(t, "PassVoiceCaptcha", db.PassVoiceCaptcha(ctx, w.ID, "sv1", 40))
		must(t, "IssueVoiceCaptcha", db.IssueVoiceCaptcha(ctx, w.ID, "sv1", "glue the sheet", 50))
		c, err := db.VoiceCaptchaOf(ctx, w.ID, "sv1")
		if err != nil || c.Text != "glue the sheet" || c.Attempts != 0 || c.PassedAt != 40 || c.IssuedAt != 50 {
			t.Fatalf("captcha after a new sentence = %+v, %v", c, err)
		}
		if _, err := db.VoiceCaptchaOf(ctx, other.ID, "sv1"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another workspace sees the captcha: %v", err)
		}

		must(t, "SetVoiceSafety NONE", db.SetVoiceSafety(ctx, "sv1", store.SafetyNone, 60))
		if s, _ := db.VoiceSafetyOf(ctx, "sv1"); s.Control != store.SafetyNone {
			t.Errorf("NONE left %+v", s)
		}
	})
}
