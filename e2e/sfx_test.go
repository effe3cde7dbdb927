package e2e

import (
	"context"
	"testing"
	"time"

	"timbre/internal/store"
)

// TestSDKSoundEffects drives sound effects with the official ElevenLabs JS SDK (sfx_sdk.mjs):
// textToSoundEffects.convert with every field, exact pcm durations, a loop, an automatic
// duration and the 422 for a duration out of range.
func TestSDKSoundEffects(t *testing.T) {
	node := requireNode(t, "@elevenlabs/elevenlabs-js")
	srv := StartTimbre(t)
	runNode(t, node, 120*time.Second, "sfx_sdk.mjs",
		"TIMBRE_BASE_URL="+srv.URL,
		"TIMBRE_API_KEY="+srv.APIKey,
		"ELEVENLABS_API_KEY=", // never fall back to a real key from the environment
	)
}

// TestBrowserSoundEffects: a person explores the catalogue, uses a prompt, makes four variations,
// and deletes one from the history (sfx.mjs); the database then holds three.
func TestBrowserSoundEffects(t *testing.T) {
	b := requireBrowser(t)
	srv := StartTimbre(t)
	u := verifiedUser(t, srv, "sonia@example.com", "")
	b.run(t, srv, "sfx.mjs", "USER_EMAIL="+u.Email, "USER_PASSWORD="+flowPassword)
	rows, _, err := srv.App.DB.ListSoundGenerations(context.Background(), u.WorkspaceID, store.SoundFilter{UserID: u.ID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Text != "a door creaks then slams" {
		t.Fatalf("sound effects after the flow: %+v", rows)
	}
}
