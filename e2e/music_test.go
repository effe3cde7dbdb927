package e2e

import (
	"testing"
	"time"
)

// TestSDKMusic drives music with the official ElevenLabs JS SDK (music_sdk.mjs): plans, compose
// from a prompt and from a seeded plan (repeatable), stream, composeDetailed through the SDK's
// multipart parser, lyrics sung, and the 422 for a section too short.
func TestSDKMusic(t *testing.T) {
	node := requireNode(t, "@elevenlabs/elevenlabs-js")
	srv := StartTimbre(t)
	runNode(t, node, 180*time.Second, "music_sdk.mjs",
		"TIMBRE_BASE_URL="+srv.URL,
		"TIMBRE_API_KEY="+srv.APIKey,
		"ELEVENLABS_API_KEY=", // never fall back to a real key from the environment
	)
}
