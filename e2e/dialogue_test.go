package e2e

import (
	"context"
	"testing"

	"timbre/internal/store"
)

// TestBrowserTextToDialogue: a person writes a two-voice dialogue in the text-to-speech page's
// Dialogue mode, generates it, hears it in the global player, downloads it and finds it in the
// history with its lines (dialogue.mjs).
func TestBrowserTextToDialogue(t *testing.T) {
	b := requireBrowser(t)
	srv := StartTimbre(t)
	u := verifiedUser(t, srv, "dora@example.com", "")
	b.run(t, srv, "dialogue.mjs", "USER_EMAIL="+u.Email, "USER_PASSWORD="+flowPassword)

	// The database holds one item for the dialogue, with its two lines.
	items, _, err := srv.App.DB.ListHistory(context.Background(), u.WorkspaceID, store.HistoryFilter{PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Dialogue == "" {
		t.Fatalf("history after the flow: %+v", items)
	}
}
