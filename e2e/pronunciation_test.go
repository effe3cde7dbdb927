package e2e

import (
	"context"
	"testing"
	"time"

	"timbre/internal/store"
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

// TestBrowserPronunciation: a person makes a dictionary on /app/pronunciation-dictionaries, adds
// an alias and a phoneme rule, plays one, downloads the PLS and archives it (pronunciation.mjs);
// the database then holds that dictionary, archived, at its third version.
func TestBrowserPronunciation(t *testing.T) {
	b := requireBrowser(t)
	srv := StartTimbre(t)
	u := verifiedUser(t, srv, "petra@example.com", "")
	b.run(t, srv, "pronunciation.mjs", "USER_EMAIL="+u.Email, "USER_PASSWORD="+flowPassword)

	list, err := srv.App.DB.ListPronunciationDictionaries(context.Background(), u.WorkspaceID,
		store.DictionaryViewer{UserID: u.ID, Admin: true}, store.DictionaryPage{IncludeArchived: true, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Name != "Company words" || list[0].LatestRulesNum != 2 || list[0].ArchivedAt == nil || list[0].CreatedBy != u.ID {
		t.Fatalf("dictionaries after the flow: %+v", list)
	}
}
