package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

func TestAccountExtrasStore(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, _ := newUser(t, db, "extras@example.com")
		v, _ := newUser(t, db, "neighbour@example.com")

		a, err := db.AccountExtras(ctx, u.ID)
		must(t, "AccountExtras", err)
		// Spec §3 defaults: onboarding and checklist completed, nothing accepted or opted out.
		if !a.IsOnboardingCompleted || !a.IsOnboardingChecklistCompleted || a.ChecklistID != "" || a.CCPAOptOut ||
			a.AcceptedBIPATerms || a.HasAlphaAccess || a.AlphaRequestedAt != nil || a.PublicUserName != "" || len(a.CompletedItems) != 0 {
			t.Fatalf("fresh extras = %+v", a)
		}
		if _, err := db.AccountExtras(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("AccountExtras(nobody) = %v", err)
		}

		must(t, "MarkOnboardingPending", db.MarkOnboardingPending(ctx, u.ID))
		if a, _ := db.AccountExtras(ctx, u.ID); a.IsOnboardingCompleted {
			t.Error("onboarding still completed after MarkOnboardingPending")
		}
		must(t, "CompleteOnboardingSurvey", db.CompleteOnboardingSurvey(ctx, u.ID, "Ada", `{"role":"developer"}`))
		if a, _ := db.AccountExtras(ctx, u.ID); !a.IsOnboardingCompleted || a.OnboardingSurvey != `{"role":"developer"}` {
			t.Errorf("after survey: %+v", a)
		}
		if got, _ := db.UserByID(ctx, u.ID); got.FirstName != "Ada" {
			t.Errorf("first name after survey = %q", got.FirstName)
		}

		// Hide / mark-complete need an initiated checklist.
		wantErr(t, "hide before initiate", db.SetOnboardingChecklistHidden(ctx, u.ID, true), store.ErrNotFound)
		wantErr(t, "mark before initiate", db.MarkOnboardingChecklistComplete(ctx, u.ID), store.ErrNotFound)
		// An item done before the checklist exists is remembered.
		fresh, err := db.CompleteOnboardingItem(ctx, u.ID, "api_key_unhidden", t0)
		must(t, "CompleteOnboardingItem", err)
		if !fresh {
			t.Error("first completion not reported as new")
		}
		if fresh, _ := db.CompleteOnboardingItem(ctx, u.ID, "api_key_unhidden", t0.Add(time.Hour)); fresh {
			t.Error("second completion reported as new")
		}
		if _, err := db.CompleteOnboardingItem(ctx, "nobody", "api_key_unhidden", t0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("item for a missing user = %v", err)
		}
		id, err := db.InitiateOnboardingChecklist(ctx, u.ID, "cl_1")
		must(t, "Initiate", err)
		id2, err := db.InitiateOnboardingChecklist(ctx, u.ID, "cl_2")
		must(t, "Initiate again", err)
		if id != "cl_1" || id2 != "cl_1" {
			t.Errorf("checklist ids %q, %q: a second initiate must keep the first", id, id2)
		}
		must(t, "hide", db.SetOnboardingChecklistHidden(ctx, u.ID, true))
		a, _ = db.AccountExtras(ctx, u.ID)
		if !a.ChecklistHidden || a.IsOnboardingChecklistCompleted || a.CompletedItems["api_key_unhidden"] != t0.Unix() {
			t.Fatalf("after initiate+hide = %+v", a)
		}
		must(t, "mark complete", db.MarkOnboardingChecklistComplete(ctx, u.ID))

		must(t, "CCPA", db.SetCCPAOptOut(ctx, u.ID, true))
		must(t, "BIPA", db.AcceptBIPATerms(ctx, u.ID, t0))
		must(t, "BIPA again", db.AcceptBIPATerms(ctx, u.ID, t0.Add(time.Hour)))
		must(t, "alpha", db.RequestAlphaAccess(ctx, u.ID, t0))
		must(t, "alpha again", db.RequestAlphaAccess(ctx, u.ID, t0.Add(time.Hour)))
		must(t, "public name", db.SetPublicUserName(ctx, u.ID, "Ada L."))
		a, _ = db.AccountExtras(ctx, u.ID)
		if !a.IsOnboardingChecklistCompleted || !a.CCPAOptOut || !a.AcceptedBIPATerms || *a.BIPAAcceptedAt != t0.Unix() ||
			*a.AlphaRequestedAt != t0.Unix() || a.HasAlphaAccess || a.PublicUserName != "Ada L." {
			t.Fatalf("after changes = %+v", a)
		}
		if n, _ := db.PublicUserName(ctx, u.ID); n != "Ada L." {
			t.Errorf("PublicUserName = %q", n)
		}
		must(t, "grant alpha", db.SetAlphaAccess(ctx, u.ID, true))
		if a, _ := db.AccountExtras(ctx, u.ID); !a.HasAlphaAccess {
			t.Error("alpha access not granted")
		}

		// The neighbour is untouched.
		b, _ := db.AccountExtras(ctx, v.ID)
		if b.CCPAOptOut || b.AcceptedBIPATerms || b.ChecklistID != "" || len(b.CompletedItems) != 0 || b.PublicUserName != "" {
			t.Errorf("neighbour changed: %+v", b)
		}
	})
}

func TestMessagesStore(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, _ := newUser(t, db, "msgs@example.com")
		v, _ := newUser(t, db, "other-msgs@example.com")
		for i, title := range []string{"first", "second", "third"} {
			m := &store.Message{UserID: u.ID, Severity: "info", Title: title, NeedsAttention: i == 1, CreatedAtMs: t0.UnixMilli() + int64(i)}
			must(t, "CreateMessage", db.CreateMessage(ctx, m))
		}
		must(t, "CreateMessage v", db.CreateMessage(ctx, &store.Message{UserID: v.ID, Severity: "warning", Title: "theirs", CreatedAtMs: t0.UnixMilli()}))
		wantErr(t, "message for a missing user", db.CreateMessage(ctx, &store.Message{UserID: "nobody", Severity: "info", Title: "x", CreatedAtMs: 1}), store.ErrNotFound)

		ms, unread, err := db.Messages(ctx, u.ID, false, 50)
		must(t, "Messages", err)
		if len(ms) != 3 || unread != 3 || ms[0].Title != "third" || ms[2].Title != "first" || !ms[1].NeedsAttention || ms[0].NeedsAttention {
			t.Fatalf("messages = %+v unread %d", ms, unread)
		}
		// Another user's message cannot be marked through this user.
		theirs, _, _ := db.Messages(ctx, v.ID, false, 50)
		wantErr(t, "mark someone else's", db.MarkMessageRead(ctx, u.ID, theirs[0].ID, t0), store.ErrNotFound)
		must(t, "MarkMessageRead", db.MarkMessageRead(ctx, u.ID, ms[1].ID, t0))
		must(t, "MarkMessageRead again", db.MarkMessageRead(ctx, u.ID, ms[1].ID, t0.Add(time.Minute)))
		ms2, unread, _ := db.Messages(ctx, u.ID, false, 50)
		if unread != 2 || ms2[1].ReadAtMs == nil || *ms2[1].ReadAtMs != t0.UnixMilli() {
			t.Fatalf("after read: unread %d, %+v", unread, ms2[1])
		}
		only, _, _ := db.Messages(ctx, u.ID, true, 50)
		if len(only) != 2 {
			t.Errorf("unread only = %d", len(only))
		}
		if lim, _, _ := db.Messages(ctx, u.ID, false, 1); len(lim) != 1 {
			t.Errorf("limit 1 gave %d", len(lim))
		}
		n, err := db.MarkAllMessagesRead(ctx, u.ID, t0)
		must(t, "MarkAllMessagesRead", err)
		if n != 2 {
			t.Errorf("mark all read touched %d", n)
		}
		if _, unread, _ := db.Messages(ctx, v.ID, false, 50); unread != 1 {
			t.Errorf("the other user's unread = %d, want 1", unread)
		}
	})
}
