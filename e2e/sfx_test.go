package e2e

import (
	"testing"
	"time"
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
