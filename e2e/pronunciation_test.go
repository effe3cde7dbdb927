package e2e

import (
	"testing"
	"time"
)

// TestSDKPronunciationDictionaries drives pronunciation dictionaries with the official
// ElevenLabs JS SDK (pronunciation_sdk.mjs): createFromFile, createFromRules, get, list with a
// cursor, rules.add/remove/set, download of old and new versions, update, text to speech with
// locators, and the 422 for a DOCTYPE.
func TestSDKPronunciationDictionaries(t *testing.T) {
	node := requireNode(t, "@elevenlabs/elevenlabs-js")
	srv := StartTimbre(t)
	runNode(t, node, 120*time.Second, "pronunciation_sdk.mjs",
		"TIMBRE_BASE_URL="+srv.URL,
		"TIMBRE_API_KEY="+srv.APIKey,
		"ELEVENLABS_API_KEY=",
	)
}
