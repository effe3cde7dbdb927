package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBrowserSpeechToText: a person drops a file of Timbre's own speech on the Speech to Text
// page, the transcript opens, a click on a word plays from it, they rename the speaker, edit a
// word and download the SRT (stt.mjs). The speech is made here with Timbre's text to speech.
func TestBrowserSpeechToText(t *testing.T) {
	b := requireBrowser(t)
	srv := StartTimbre(t)
	u := verifiedUser(t, srv, "stella@example.com", "")

	body, _ := json.Marshal(map[string]any{"text": "It is a nice day to go for a walk in the park."})
	req, _ := http.NewRequest("POST", srv.URL+"/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM?output_format=mp3_44100_128", bytes.NewReader(body))
	req.Header.Set("xi-api-key", srv.APIKey)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	mp3, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("text to speech → %d: %s", res.StatusCode, mp3)
	}
	file := filepath.Join(t.TempDir(), "walk-in-the-park.mp3")
	if err := os.WriteFile(file, mp3, 0o600); err != nil {
		t.Fatal(err)
	}

	b.run(t, srv, "stt.mjs", "USER_EMAIL="+u.Email, "USER_PASSWORD="+flowPassword, "SPEECH_FILE="+file)

	// What the browser did is what the database holds: the transcript with its audio and edits,
	// and the one made with options, its roles and entities in the stored result.
	page, _, err := srv.App.DB.ListTranscripts(context.Background(), u.WorkspaceID, nil, 10)
	if err != nil || len(page) != 2 {
		t.Fatalf("transcripts: %+v, %v", page, err)
	}
	byName := map[string]string{}
	for _, tr := range page {
		byName[tr.FileName] = tr.ID
	}
	got, err := srv.App.DB.Transcript(context.Background(), u.WorkspaceID, byName["walk-in-the-park.mp3"])
	if err != nil || got.AudioKey == "" || got.SpeakerNames != `{"speaker_0":"Narrator"}` || got.EditedAt == 0 {
		t.Fatalf("transcript after the flow: %+v, %v", got, err)
	}
	opts, err := srv.App.DB.Transcript(context.Background(), u.WorkspaceID, byName["options.mp3"])
	if err != nil || !strings.Contains(opts.Result, `"entities":[`) || !strings.Contains(opts.Result, `"speaker_id":"`) || strings.Contains(opts.Result, `"speaker_id":"speaker_`) {
		t.Fatalf("transcript made with options: %+v, %v", opts, err)
	}
}
