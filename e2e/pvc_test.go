package e2e

import (
	"context"
	"testing"
	"time"
)

// TestSDKProfessionalCloning drives professional cloning with the official ElevenLabs JS SDK
// (pvc.mjs): create, samples, waveform, speaker separation, captcha, training, get.
func TestSDKProfessionalCloning(t *testing.T) {
	node := requireNode(t, "@elevenlabs/elevenlabs-js")
	srv := StartTimbre(t)
	u, err := srv.App.DB.UserByEmail(context.Background(), srv.Email)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.App.DB.SetTier(context.Background(), u.WorkspaceID, "creator"); err != nil {
		t.Fatal(err)
	}
	runNode(t, node, 300*time.Second, "pvc.mjs", "TIMBRE_BASE_URL="+srv.URL, "TIMBRE_API_KEY="+srv.APIKey, "ELEVENLABS_API_KEY=")
}
