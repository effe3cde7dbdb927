package e2e

import (
	"context"
	"testing"
	"time"

	"timbre/internal/store"
	"timbre/internal/voice"
)

// TestSDKVoiceDesign drives voice design with the official ElevenLabs JS SDK
// (voicedesign_sdk.mjs): design and createPreviews, the preview stream, create, remix, text to
// speech with the saved voice, and the 422 for a short description.
func TestSDKVoiceDesign(t *testing.T) {
	node := requireNode(t, "@elevenlabs/elevenlabs-js")
	srv := StartTimbre(t)
	runNode(t, node, 180*time.Second, "voicedesign_sdk.mjs",
		"TIMBRE_BASE_URL="+srv.URL,
		"TIMBRE_API_KEY="+srv.APIKey,
		"ELEVENLABS_API_KEY=", // never fall back to a real key from the environment
	)
}

// TestBrowserVoiceDesign: a person designs a voice from an example prompt on
// /app/voice-lab/design, plays the previews, picks one, names it and saves it (voicedesign.mjs);
// the database then holds that voice, shaped as the description said.
func TestBrowserVoiceDesign(t *testing.T) {
	b := requireBrowser(t)
	srv := StartTimbre(t)
	u := verifiedUser(t, srv, "vera@example.com", "")
	b.run(t, srv, "voicedesign.mjs", "USER_EMAIL="+u.Email, "USER_PASSWORD="+flowPassword)

	voices, _, err := srv.App.DB.ListVoices(context.Background(), u.WorkspaceID, store.VoiceFilter{Category: "generated", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(voices) != 1 || voices[0].Name != "Old Tom" || voices[0].CreatedBy != u.ID {
		t.Fatalf("generated voices after the flow: %+v", voices)
	}
	// "A deep, slow elderly man…": a low pitch and a slow pace.
	if b := voice.Base(&voices[0]); b.F0Hz == 0 || b.F0Hz > 100 || b.Rate >= 0.85 {
		t.Errorf("saved voice's prosody: %+v", b)
	}
}
