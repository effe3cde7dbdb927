package e2e

import (
	"context"
	"testing"
	"time"

	"timbre/internal/store"
)

// TestBrowserSensitiveAction: from a session older than the fresh window, changing the email
// first asks for the code mailed to the current address (sensitive.mjs): a wrong code is refused,
// the right one shows the spec's §8 text, one click retries, and the change goes through.
func TestBrowserSensitiveAction(t *testing.T) {
	b := requireBrowser(t)
	srv := StartTimbre(t)
	u := verifiedUser(t, srv, "vera@example.com", "")

	// A browser session opened 15 minutes ago (the fresh window is 10), as a person who signed in
	// earlier would have: the cookies are handed to the browser.
	ctx := context.Background()
	token, csrf := store.RandomString(43), store.RandomString(32)
	opened := time.Now().Add(-15 * time.Minute)
	if err := srv.App.DB.CreateSessionWithMeta(ctx, token, store.Session{UserID: u.ID, WorkspaceID: u.WorkspaceID, CSRFToken: csrf,
		ExpiresAt: time.Now().Add(24 * time.Hour).Unix()}, store.SessionMeta{PublicID: store.NewID(), UserAgent: "e2e"}, opened); err != nil {
		t.Fatal(err)
	}
	const newEmail = "vera.new@example.com"
	b.run(t, srv, "sensitive.mjs", "USER_EMAIL="+u.Email, "NEW_EMAIL="+newEmail, "SESSION_TOKEN="+token, "CSRF_TOKEN="+csrf)

	got, err := srv.App.DB.UserByID(ctx, u.ID)
	if err != nil || got.Email != newEmail {
		t.Fatalf("email after the flow: %+v, %v", got, err)
	}
}
