package e2e

import (
	"testing"
	"time"
)

// TestSDKCompatibility drives Timbre with the official ElevenLabs JS SDK (sdk.mjs): text to
// speech (convert, stream, both with timestamps), forced alignment, voices, voice settings,
// models, history (list, get, audio, download, delete), the user and subscription, real-time
// speech to text (speechToText.realtime: partials and a committed transcript), and the SDK's
// errors.
func TestSDKCompatibility(t *testing.T) {
	node := requireNode(t, "@elevenlabs/elevenlabs-js")
	srv := StartTimbre(t)
	runNode(t, node, 90*time.Second, "sdk.mjs",
		"TIMBRE_BASE_URL="+srv.URL,
		"TIMBRE_API_KEY="+srv.APIKey,
		"ELEVENLABS_API_KEY=", // never fall back to a real key from the environment
	)
}
