package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSDKVoiceLibrary drives the voice library with the official ElevenLabs JS SDK
// (voicelibrary_sdk.mjs): publish in workspace A, voices.getShared, voices.share, findSimilarVoices and
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
	runNode(t, node, 180*time.Second, "voicelibrary_sdk.mjs",
		"TIMBRE_BASE_URL="+srv.URL, "TIMBRE_API_KEY="+srv.APIKey, "OTHER_API_KEY="+otherKey, "SPEECH_FILE="+one, "SPEECH_FILE_2="+two, "ELEVENLABS_API_KEY=")
}

// publishVoice clones a voice in the key's workspace from an mp3 file and publishes it to the
// library, through the API.
func publishVoice(t *testing.T, base, key, file, name, labels string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("name", name)
	_ = mw.WriteField("labels", labels)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="files"; filename="`+filepath.Base(file)+`"`)
	h.Set("Content-Type", "audio/mpeg")
	w, _ := mw.CreatePart(h)
	_, _ = w.Write(data)
	_ = mw.Close()
	var added struct {
		VoiceID string `json:"voice_id"`
	}
	call(t, "POST", base+"/v1/voices/add", key, mw.FormDataContentType(), &buf, &added)
	var shared struct {
		Status string `json:"status"`
	}
	call(t, "POST", base+"/v1/voices/"+added.VoiceID+"/share", key, "application/json", bytes.NewReader([]byte(`{"description":"A calm storyteller"}`)), &shared)
	if shared.Status != "enabled" {
		t.Fatalf("share answered %q", shared.Status)
	}
	return added.VoiceID
}

func call(t *testing.T, method, url, key, ct string, body io.Reader, out any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, body)
	req.Header.Set("xi-api-key", key)
	req.Header.Set("Content-Type", ct)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		var b bytes.Buffer
		_, _ = b.ReadFrom(res.Body)
		t.Fatalf("%s %s: %d %s", method, url, res.StatusCode, b.String())
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserVoiceLibrary: a person finds a voice another workspace published in the Voice
// Library, checks its preview and adds it to their voices under a new name (voicelibrary.mjs).
func TestBrowserVoiceLibrary(t *testing.T) {
	b := requireBrowser(t)
	srv := StartTimbre(t)
	ctx := context.Background()
	owner, err := srv.App.DB.UserByEmail(ctx, srv.Email)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.App.DB.SetTier(ctx, owner.WorkspaceID, "creator"); err != nil {
		t.Fatal(err)
	}
	file := speechFile(t, srv, "narrator.mp3", "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.")
	publishVoice(t, srv.URL, srv.APIKey, file, "Calm narrator", `{"gender":"female","accent":"american","age":"young"}`)
	u := verifiedUser(t, srv, "lena@example.com", "starter")
	b.run(t, srv, "voicelibrary.mjs", "USER_EMAIL="+u.Email, "USER_PASSWORD="+flowPassword, "VOICE_NAME=Calm narrator")
}
