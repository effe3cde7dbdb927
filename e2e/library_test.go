package e2e

import (
	"context"
	"testing"
	"time"
)

// TestSDKVoiceLibrary drives the voice library with the official ElevenLabs JS SDK
// (library.mjs): publish in workspace A, voices.getShared, voices.share, findSimilarVoices and
// the collection calls in workspace B, copied_disabled refused.
func TestSDKVoiceLibrary(t *testing.T) {
	node := requireNode(t, "@elevenlabs/elevenlabs-js")
	srv := StartTimbre(t)
	ctx := context.Background()
	u, err := srv.App.DB.UserByEmail(ctx, srv.Email)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.App.DB.SetTier(ctx, u.WorkspaceID, "creator"); err != nil {
		t.Fatal(err)
	}
	other := verifiedUser(t, srv, "borrower@example.com", "starter")
	_, otherKey, err := srv.App.Auth.CreateAPIKey(ctx, other.ID, other.WorkspaceID, "library e2e")
	if err != nil {
		t.Fatal(err)
	}
	one := speechFile(t, srv, "one.mp3", "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.")
	two := speechFile(t, srv, "two.mp3", "It is easy to tell the depth of a well. These days a chicken leg is a rare dish.")
	runNode(t, node, 180*time.Second, "library.mjs",
		"TIMBRE_BASE_URL="+srv.URL, "TIMBRE_API_KEY="+srv.APIKey, "OTHER_API_KEY="+otherKey, "SPEECH_FILE="+one, "SPEECH_FILE_2="+two, "ELEVENLABS_API_KEY=")
}
