package app_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/plan"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

type isolationHistory struct {
	Items []struct {
		ID              string  `json:"id"`
		Title           string  `json:"title"`
		Format          string  `json:"format"`
		DurationSeconds float64 `json:"duration_seconds"`
		DownloadURL     string  `json:"download_url"`
		PreviewB64      *string `json:"preview_b64"`
	} `json:"items"`
	HasMore bool `json:"has_more"`
}

func (e *env) isolationHistory(key, query string) isolationHistory {
	e.t.Helper()
	r := e.do("GET", "/v1/audio-isolation/history"+query, key, nil)
	expect(e.t, r, 200)
	var h isolationHistory
	if err := json.Unmarshal(r.body, &h); err != nil {
		e.t.Fatal(err)
	}
	return h
}

// TestAudioIsolation: speech made by Timbre's TTS goes through the voice isolator; the audio
// comes back as mp3 of the same duration, charged at 1,000 credits a minute (per second) in the
// same ledger, kept in the member's isolation history with a working download, and deletable.
func TestAudioIsolation(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			ctx := context.Background()
			mp3 := e.speak(sttSentence)
			in, rate, err := audio.Decode(ctx, mp3)
			if err != nil {
				t.Fatal(err)
			}
			seconds := float64(len(in)) / float64(rate)
			before := e.workspace().CharacterCount

			r := e.postForm("/v1/audio-isolation", "audio", mp3, map[string]any{"file_format": "other", "preview_b64": "aWNvbg=="}, "xi-api-key", e.key)
			expect(t, r, 200)
			if ct := r.Header.Get("Content-Type"); ct != "audio/mpeg" {
				t.Fatalf("content type %q", ct)
			}
			id := r.Header.Get("history-item-id")
			out, outRate, err := audio.Decode(ctx, r.body)
			if err != nil || id == "" {
				t.Fatalf("decode the isolated audio: %v (id %q)", err, id)
			}
			// mp3 pads a frame or so at the ends; the isolator itself keeps the length exactly.
			if got := float64(len(out)) / float64(outRate); math.Abs(got-seconds) > 0.06 {
				t.Fatalf("isolated audio lasts %.3f s, the upload %.3f s", got, seconds)
			}
			want := plan.IsolationCredits(seconds)
			if got := e.workspace().CharacterCount - before; got != want || r.Header.Get("character-cost") == "" {
				t.Fatalf("charged %d credits, want %d for %.2f s", got, want, seconds)
			}
			if want != int64(math.Ceil(math.Ceil(seconds)*1000/60)) {
				t.Fatalf("IsolationCredits(%.2f) = %d", seconds, want)
			}

			// The member's history lists it; its download is the same audio.
			h := e.isolationHistory(e.key, "")
			if len(h.Items) != 1 || h.Items[0].ID != id || h.Items[0].Title != "speech" || h.Items[0].Format != "mp3_44100_128" ||
				math.Abs(h.Items[0].DurationSeconds-seconds) > 1e-6 || h.Items[0].PreviewB64 == nil || *h.Items[0].PreviewB64 != "aWNvbg==" || h.HasMore {
				t.Fatalf("history: %+v", h)
			}
			dl := e.do("GET", h.Items[0].DownloadURL, e.key, nil)
			expect(t, dl, 200)
			if string(dl.body) != string(r.body) {
				t.Fatal("the download differs from the response")
			}

			// The stream route: the same work, sent in chunks.
			s := e.postForm("/v1/audio-isolation/stream", "audio", mp3, nil, "xi-api-key", e.key)
			expect(t, s, 200)
			if len(s.TransferEncoding) == 0 || s.TransferEncoding[0] != "chunked" || len(s.body) < len(r.body)/2 {
				t.Fatalf("stream: transfer %v, %d bytes", s.TransferEncoding, len(s.body))
			}
			if got := e.workspace().CharacterCount - before; got != 2*want {
				t.Fatalf("two isolations charged %d credits, want %d", got, 2*want)
			}
			// Two pages of one: both isolations, once each. (Made within one second, they sort by
			// id, so which comes first is not fixed.)
			p1 := e.isolationHistory(e.key, "?page_size=1")
			if len(p1.Items) != 1 || !p1.HasMore {
				t.Fatalf("page 1 of 1: %+v", p1)
			}
			if h := e.isolationHistory(e.key, "?page_size=1&page=2&search=SPEE"); len(h.Items) != 1 || h.HasMore || h.Items[0].ID == p1.Items[0].ID ||
				(h.Items[0].ID != id && p1.Items[0].ID != id) {
				t.Fatalf("page 2 of 1 (search): %+v after %+v", h, p1)
			}
			if h := e.isolationHistory(e.key, "?search=podcast"); len(h.Items) != 0 {
				t.Fatalf("search matched %+v", h)
			}

			// Another workspace sees nothing of it.
			_, otherKey := e.newUser("other@example.com")
			if h := e.isolationHistory(otherKey, ""); len(h.Items) != 0 {
				t.Fatalf("another workspace lists %+v", h)
			}
			expect(t, e.do("GET", h.Items[0].DownloadURL, otherKey, nil), 404)
			expect(t, e.do("DELETE", "/v1/audio-isolation/history/"+id, otherKey, nil), 404)

			// Deleted: the row and its audio are gone.
			row, err := e.app.DB.Isolation(ctx, e.user.WorkspaceID, id)
			if err != nil {
				t.Fatal(err)
			}
			r = e.do("DELETE", "/v1/audio-isolation/history/"+id, e.key, nil)
			expect(t, r, http.StatusNoContent)
			expect(t, e.do("GET", h.Items[0].DownloadURL, e.key, nil), 404)
			expect(t, e.do("DELETE", "/v1/audio-isolation/history/"+id, e.key, nil), 404)
			if ok, _ := e.app.Blob.Exists(ctx, row.BlobKey); ok {
				t.Fatal("the isolated audio is still stored")
			}
			if h := e.isolationHistory(e.key, ""); len(h.Items) != 1 {
				t.Fatalf("after delete: %+v", h)
			}
		})
	}
}

// silentWAV is a WAV file of seconds of silence at rate.
func silentWAV(seconds float64, rate int) []byte {
	n := int(seconds * float64(rate))
	b := make([]byte, 44+2*n)
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+2*n))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1)
	binary.LittleEndian.PutUint16(b[22:], 1)
	binary.LittleEndian.PutUint32(b[24:], uint32(rate))
	binary.LittleEndian.PutUint32(b[28:], uint32(2*rate))
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(2*n))
	return b
}

// TestAudioIsolationBadInput: every unusable upload is a 4xx naming the field; none charges or
// stores anything.
func TestAudioIsolationBadInput(t *testing.T) {
	e := newEnv(t, store.SQLite)
	mp3 := e.speak("Hello there.")
	before := e.workspace().CharacterCount
	rowsBefore := countRows(t, e, "audio_isolations")
	cases := []struct {
		name   string
		file   []byte
		fields map[string]any
		field  string
	}{
		{"no audio", nil, map[string]any{}, "audio"},
		{"empty", []byte{}, nil, "audio"},
		{"not audio", []byte("this is a text file, not audio at all"), nil, "audio"},
		{"truncated mp3", mp3[:200], nil, "audio"},
		{"too short", silentWAV(0.05, 16000), nil, "audio"},
		{"too short pcm", make([]byte, 1600), map[string]any{"file_format": "pcm_s16le_16"}, "audio"},
		{"odd pcm", make([]byte, 3201), map[string]any{"file_format": "pcm_s16le_16"}, "audio"},
		// An hour and a second, kept small by a low sample rate.
		{"too long", silentWAV(3601, 1000), nil, "audio"},
		{"bad file_format", mp3, map[string]any{"file_format": "flac"}, "file_format"},
	}
	for _, c := range cases {
		for _, path := range []string{"/v1/audio-isolation", "/v1/audio-isolation/stream"} {
			t.Run(c.name+path, func(t *testing.T) {
				r := e.postForm(path, "audio", c.file, c.fields, "xi-api-key", e.key)
				loc := fieldError(t, r)
				if loc[len(loc)-1] != c.field {
					t.Fatalf("422 names %v, want %s: %s", loc, c.field, r.body)
				}
			})
		}
	}
	// A JSON body is not a form.
	expect(t, e.do("POST", "/v1/audio-isolation", e.key, map[string]any{"audio": "x"}), 415)
	if e.workspace().CharacterCount != before || countRows(t, e, "audio_isolations") != rowsBefore {
		t.Fatal("bad input charged or stored something")
	}

	// Over the quota: refused with quota_exceeded, nothing charged or stored.
	rawExec(t, e.app.DB, `UPDATE workspaces SET character_count = 9999 WHERE id = ?`, e.user.WorkspaceID)
	r := e.postForm("/v1/audio-isolation", "audio", mp3, nil, "xi-api-key", e.key)
	expect(t, r, 401)
	if detailStatus(t, r) != "quota_exceeded" || countRows(t, e, "audio_isolations") != rowsBefore {
		t.Fatalf("over quota: %s", r.body)
	}
}
