package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

func newWebhook(t *testing.T, db *store.DB, workspaceID, name string) store.Webhook {
	t.Helper()
	w := store.Webhook{ID: store.NewID(), WorkspaceID: workspaceID, Name: name, URL: "https://hooks.example.com/" + name,
		SecretEnc: "sealed-secret", HeadersEnc: "sealed-headers", RetryEnabled: true, CreatedByUserID: "u1", CreatedAt: t0.Unix()}
	if err := db.CreateWebhook(context.Background(), w); err != nil {
		t.Fatalf("CreateWebhook: %v", err)
	}
	return w
}

func TestWebhooksCRUDScopedByWorkspace(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		_, wsA := newUser(t, db, "a@example.com")
		_, wsB := newUser(t, db, "b@example.com")
		w1 := newWebhook(t, db, wsA.ID, "one")
		newWebhook(t, db, wsB.ID, "bee")

		got, err := db.Webhook(ctx, wsA.ID, w1.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "one" || got.URL != w1.URL || got.AuthType != "hmac" || got.SecretEnc != "sealed-secret" || got.IsDisabled || got.IsAutoDisabled ||
			!got.RetryEnabled || got.LastFailureCode != nil || len(got.Events) != 0 {
			t.Fatalf("webhook read back as %+v", got)
		}
		if _, err := db.Webhook(ctx, wsB.ID, w1.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("workspace B reads A's webhook: %v", err)
		}
		list, _ := db.ListWebhooks(ctx, wsA.ID)
		if len(list) != 1 || list[0].ID != w1.ID {
			t.Fatalf("A's list = %+v", list)
		}

		// Another workspace can neither change nor delete it.
		name := "hijacked"
		if err := db.UpdateWebhook(ctx, wsB.ID, w1.ID, store.WebhookUpdate{Name: &name}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("B updated A's webhook: %v", err)
		}
		if err := db.DeleteWebhook(ctx, wsB.ID, w1.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("B deleted A's webhook: %v", err)
		}

		name, off, dis := "renamed", false, true
		events := []string{"speech_to_text"}
		if err := db.UpdateWebhook(ctx, wsA.ID, w1.ID, store.WebhookUpdate{Name: &name, IsDisabled: &dis, RetryEnabled: &off, Events: &events}); err != nil {
			t.Fatal(err)
		}
		got, _ = db.Webhook(ctx, wsA.ID, w1.ID)
		if got.Name != "renamed" || !got.IsDisabled || got.RetryEnabled || !slices.Equal(got.Events, events) {
			t.Fatalf("after update: %+v", got)
		}
		// Disabled webhooks get no events; enabled ones only those they subscribe to.
		if hs, _ := db.ActiveWebhooksFor(ctx, wsA.ID, "speech_to_text"); len(hs) != 0 {
			t.Fatalf("disabled webhook is active: %+v", hs)
		}
		if err := db.UpdateWebhook(ctx, wsA.ID, w1.ID, store.WebhookUpdate{IsDisabled: &off}); err != nil {
			t.Fatal(err)
		}
		if hs, _ := db.ActiveWebhooksFor(ctx, wsA.ID, "speech_to_text"); len(hs) != 1 {
			t.Fatalf("enabled subscriber not active: %+v", hs)
		}
		if hs, _ := db.ActiveWebhooksFor(ctx, wsA.ID, "flows"); len(hs) != 0 {
			t.Fatalf("webhook active for an event it does not subscribe to: %+v", hs)
		}
		if hs, _ := db.ActiveWebhooksFor(ctx, wsB.ID, "speech_to_text"); len(hs) != 0 {
			t.Fatalf("B sees A's subscriber: %+v", hs)
		}

		if err := db.DeleteWebhook(ctx, wsA.ID, w1.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Webhook(ctx, wsA.ID, w1.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted webhook still there: %v", err)
		}
		if list, _ := db.ListWebhooks(ctx, wsB.ID); len(list) != 1 {
			t.Fatalf("deleting A's webhook touched B's: %+v", list)
		}
	})
}

func TestWebhookAttemptsFailureCountingAndAutoDisable(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		_, wsA := newUser(t, db, "a@example.com")
		_, wsB := newUser(t, db, "b@example.com")
		w := newWebhook(t, db, wsA.ID, "one")
		rec := func(attempt int64, code int64, ok, retry bool) store.AttemptOutcome {
			t.Helper()
			out, err := db.RecordWebhookAttempt(ctx, store.WebhookAttempt{WorkspaceID: wsA.ID, WebhookID: w.ID, DeliveryID: "d1", EventType: "speech_to_text",
				Attempt: attempt, StatusCode: code, Success: ok, WillRetry: retry, DurationMs: 12}, 3, t0)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		if out := rec(1, 500, false, true); out.ConsecutiveFailures != 1 || out.AutoDisabled || !out.WillRetry {
			t.Fatalf("first failure: %+v", out)
		}
		if out := rec(2, 200, true, false); out.ConsecutiveFailures != 0 {
			t.Fatalf("success did not reset the count: %+v", out)
		}
		rec(1, 502, false, true)
		rec(2, 0, false, true)
		out := rec(3, 503, false, true)
		if !out.AutoDisabled || out.ConsecutiveFailures != 3 || out.WillRetry {
			t.Fatalf("third consecutive failure: %+v, want auto-disabled without retry", out)
		}
		got, _ := db.Webhook(ctx, wsA.ID, w.ID)
		if !got.IsAutoDisabled || got.LastFailureCode == nil || *got.LastFailureCode != 503 || got.LastFailureUnix == nil || *got.LastFailureUnix != t0.Unix() {
			t.Fatalf("after auto-disable: %+v", got)
		}
		if out := rec(4, 500, false, true); out.AutoDisabled {
			t.Fatal("auto-disable reported twice")
		}

		// Re-enabling clears the automatic disable and the count.
		off := false
		if err := db.UpdateWebhook(ctx, wsA.ID, w.ID, store.WebhookUpdate{IsDisabled: &off}); err != nil {
			t.Fatal(err)
		}
		got, _ = db.Webhook(ctx, wsA.ID, w.ID)
		if got.IsAutoDisabled || got.ConsecutiveFailures != 0 {
			t.Fatalf("after re-enable: %+v", got)
		}

		// The log, newest first, paged; another workspace reads none of it.
		page, more, err := db.ListWebhookAttempts(ctx, wsA.ID, w.ID, 0, 4)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) != 4 || !more || page[0].Attempt != 4 || page[0].StatusCode != 500 || page[0].DurationMs != 12 {
			t.Fatalf("first page: %+v more=%v", page, more)
		}
		if page[1].WillRetry || page[1].StatusCode != 503 {
			t.Fatalf("the disabling attempt must be logged without retry: %+v", page[1])
		}
		rest, more, _ := db.ListWebhookAttempts(ctx, wsA.ID, w.ID, page[3].Seq, 4)
		if len(rest) != 2 || more || !rest[0].Success {
			t.Fatalf("second page: %+v more=%v", rest, more)
		}
		if other, _, _ := db.ListWebhookAttempts(ctx, wsB.ID, w.ID, 0, 50); len(other) != 0 {
			t.Fatalf("B reads A's delivery log: %+v", other)
		}
		if _, err := db.RecordWebhookAttempt(ctx, store.WebhookAttempt{WorkspaceID: wsB.ID, WebhookID: w.ID, DeliveryID: "x", EventType: "flows", Attempt: 1}, 3, t0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("attempt recorded against another workspace's webhook: %v", err)
		}

		// Deleting the webhook removes its log.
		if err := db.DeleteWebhook(ctx, wsA.ID, w.ID); err != nil {
			t.Fatal(err)
		}
		if rows := rawRows(t, db, `SELECT id FROM webhook_deliveries WHERE webhook_id = ?`, w.ID); len(rows) != 0 {
			t.Fatalf("%d log rows left after delete", len(rows))
		}
	})
}
