package e2e

import (
	"testing"
	"time"
)

// TestSDKCompatibility drives Timbre with the official ElevenLabs JS SDK (sdk.mjs): text to
// speech (convert, stream, both with timestamps), text to dialogue (all four), forced alignment, voices, voice settings,
// models, history (list, get, audio, download, delete), the user and subscription, real-time
// speech to text (speechToText.realtime: partials and a committed transcript), and the SDK's
// errors; then the listening routes on real speech made through the SDK: speech to text (word
// timestamps, diarization, SRT exports; transcripts get and delete; webhook=true delivered to a
// receiver in the script, subscribed with webhooks.create/update and verified with the SDK's
// webhooks.constructEvent), audio isolation (convert, stream, list, delete) and speech to speech
// (convert and stream; the words kept, an STS history item).
func TestSDKCompatibility(t *testing.T) {
	node := requireNode(t, "@elevenlabs/elevenlabs-js")
	// The script's webhook receiver listens on http://127.0.0.1: let webhooks reach it.
	t.Setenv("TIMBRE_WEBHOOK_ALLOW_PRIVATE", "true")
	t.Setenv("TIMBRE_WEBHOOK_ALLOW_HTTP", "true")
	srv := StartTimbre(t)
	runNode(t, node, 180*time.Second, "sdk.mjs",
		"TIMBRE_BASE_URL="+srv.URL,
		"TIMBRE_API_KEY="+srv.APIKey,
		"ELEVENLABS_API_KEY=", // never fall back to a real key from the environment
	)
}
