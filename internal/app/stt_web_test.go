package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"timbre/internal/testdb"
)

type transcriptView struct {
	TranscriptionID string            `json:"transcription_id"`
	FileName        string            `json:"file_name"`
	State           string            `json:"state"`
	Preview         string            `json:"preview"`
	Edited          bool              `json:"edited"`
	HasAudio        bool              `json:"has_audio"`
	Speakers        []string          `json:"speakers"`
	SpeakerNames    map[string]string `json:"speaker_names"`
	Transcript      *sttResponse      `json:"transcript"`
}

// TestSpeechToTextWebTranscripts drives the web app's transcript routes: the audio kept with a
// logged transcript, the list, edits re-timed against the recognised words, speaker names in the
// exports, and deletion taking the audio along.
func TestSpeechToTextWebTranscripts(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			ctx := context.Background()
			mp3 := e.speak(sttSentence)
			r := e.postForm("/v1/speech-to-text", "file", mp3, map[string]any{"model_id": "scribe_v1"}, "xi-api-key", e.key)
			expect(t, r, 200)
			var tr sttResponse
			_ = json.Unmarshal(r.body, &tr)
			id := tr.TranscriptionID
			// The list orders by creation second, then by id: start the second transcript in a
			// later second so that it is the newer one (random ids decide ties).
			time.Sleep(time.Until(time.Unix(time.Now().Unix()+1, 0)))
			second := e.postForm("/v1/speech-to-text", "file", mp3, map[string]any{"model_id": "scribe_v2"}, "xi-api-key", e.key)
			expect(t, second, 200)

			// The audio was kept as sent, and answers range requests (the player seeks).
			row, err := e.app.DB.Transcript(ctx, e.user.WorkspaceID, id)
			if err != nil || row.AudioKey != "stt/"+e.user.WorkspaceID+"/"+id+".mp3" {
				t.Fatalf("row %+v, %v", row, err)
			}
			a := e.do("GET", "/api/speech-to-text/transcripts/"+id+"/audio", e.key, nil)
			expect(t, a, 200)
			if !bytes.Equal(a.body, mp3) || a.Header.Get("Content-Type") != "audio/mpeg" {
				t.Fatalf("audio: %d bytes of %s", len(a.body), a.Header.Get("Content-Type"))
			}
			part := e.do("GET", "/api/speech-to-text/transcripts/"+id+"/audio", e.key, nil, "Range", "bytes=10-19")
			expect(t, part, http.StatusPartialContent)
			if !bytes.Equal(part.body, mp3[10:20]) {
				t.Fatal("range request gave other bytes")
			}

			// The list: newest first, a page at a time, with the first words.
			var page struct {
				Transcripts []transcriptView `json:"transcripts"`
				HasMore     bool             `json:"has_more"`
				NextCursor  *string          `json:"next_cursor"`
			}
			l := e.do("GET", "/api/speech-to-text/transcripts?page_size=1", e.key, nil)
			expect(t, l, 200)
			_ = json.Unmarshal(l.body, &page)
			if len(page.Transcripts) != 1 || !page.HasMore || page.NextCursor == nil || page.Transcripts[0].TranscriptionID == id {
				t.Fatalf("first page: %s", l.body)
			}
			l = e.do("GET", "/api/speech-to-text/transcripts?page_size=1&cursor="+*page.NextCursor, e.key, nil)
			expect(t, l, 200)
			_ = json.Unmarshal(l.body, &page)
			if len(page.Transcripts) != 1 || page.HasMore || page.NextCursor != nil {
				t.Fatalf("second page: %s", l.body)
			}
			if s := page.Transcripts[0]; s.TranscriptionID != id || s.Preview != tr.Text || !s.HasAudio || s.State != "completed" || s.FileName != "speech.mp3" {
				t.Fatalf("list entry: %+v", s)
			}
			for _, bad := range []string{"page_size=0", "page_size=x", "cursor=nonsense"} {
				loc := fieldError(t, e.do("GET", "/api/speech-to-text/transcripts?"+bad, e.key, nil))
				if want := strings.Split(bad, "=")[0]; loc[len(loc)-1] != want {
					t.Fatalf("%s: 422 names %v", bad, loc)
				}
			}

			// The view: the recogniser's transcript, one default speaker.
			var v transcriptView
			g := e.do("GET", "/api/speech-to-text/transcripts/"+id, e.key, nil)
			expect(t, g, 200)
			_ = json.Unmarshal(g.body, &v)
			if v.Transcript == nil || v.Transcript.Text != tr.Text || !slices.Equal(v.Speakers, []string{"speaker_0"}) || v.Edited {
				t.Fatalf("view: %s", g.body)
			}

			// Bad edits change nothing.
			for _, c := range []struct {
				body  map[string]any
				field string
			}{
				{map[string]any{"text": "   "}, "text"},
				{map[string]any{"speaker_names": map[string]string{"speaker_7": "Ghost"}}, "speaker_names"},
				{map[string]any{"speaker_names": map[string]string{"speaker_0": strings.Repeat("n", 61)}}, "speaker_names"},
				{map[string]any{"text": 12}, "text"},
			} {
				loc := fieldError(t, e.do("PATCH", "/api/speech-to-text/transcripts/"+id, e.key, c.body))
				if loc[len(loc)-1] != c.field {
					t.Fatalf("%v: 422 names %v", c.body, loc)
				}
			}
			if row, _ := e.app.DB.Transcript(ctx, e.user.WorkspaceID, id); row.EditedAt != 0 {
				t.Fatal("a refused edit was stored")
			}

			// An edit: the first word replaced, a word added at the end, a speaker named.
			var recognised []string
			var firstStart, firstEnd float64
			for _, w := range tr.Words {
				if w.Type == "word" {
					if len(recognised) == 0 {
						firstStart, firstEnd = *w.Start, *w.End
					}
					recognised = append(recognised, w.Text)
				}
			}
			edited := "Truly " + strings.Join(recognised[1:], " ") + " Indeed."
			p := e.do("PATCH", "/api/speech-to-text/transcripts/"+id, e.key, map[string]any{"text": edited, "speaker_names": map[string]string{"speaker_0": "Ann Example"}})
			expect(t, p, 200)
			_ = json.Unmarshal(p.body, &v)
			if v.Transcript.Text != edited || !v.Edited || v.SpeakerNames["speaker_0"] != "Ann Example" || !strings.HasPrefix(v.Preview, "Truly ") {
				t.Fatalf("edited view: %s", p.body)
			}
			first := v.Transcript.Words[0]
			if first.Text != "Truly" || *first.Start != firstStart || *first.End != firstEnd {
				t.Fatalf("the replacing word took %v–%v, the replaced one was %v–%v", *first.Start, *first.End, firstStart, firstEnd)
			}
			// The API's own route keeps the recogniser's transcript.
			var api sttResponse
			_ = json.Unmarshal(e.do("GET", "/v1/speech-to-text/transcripts/"+id, e.key, nil).body, &api)
			if api.Text != tr.Text {
				t.Fatalf("the API's transcript changed: %q", api.Text)
			}

			// Exports: files with the edits and the speaker's name.
			for _, c := range []struct{ format, name, ctype, starts, has string }{
				{"srt", "speech.srt", "application/x-subrip", "1\n00:00:", "Truly"},
				{"txt", "speech.txt", "text/plain", "Ann Example [00:00:", "Indeed."},
				{"html", "speech.html", "text/html", "<!DOCTYPE html>", "Ann Example"},
				{"segmented_json", "speech.json", "application/json", `{"segments":`, "Ann Example"},
				{"docx", "speech.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "PK", ""},
				{"pdf", "speech.pdf", "application/pdf", "%PDF", ""},
			} {
				x := e.do("GET", "/api/speech-to-text/transcripts/"+id+"/export?format="+c.format, e.key, nil)
				expect(t, x, 200)
				if x.Header.Get("Content-Type") != c.ctype || x.Header.Get("Content-Disposition") != `attachment; filename="`+c.name+`"` ||
					!strings.HasPrefix(string(x.body), c.starts) || !strings.Contains(string(x.body), c.has) {
					t.Fatalf("%s export: %s, %s: %.120q", c.format, x.Header.Get("Content-Type"), x.Header.Get("Content-Disposition"), x.body)
				}
			}
			if loc := fieldError(t, e.do("GET", "/api/speech-to-text/transcripts/"+id+"/export?format=odt", e.key, nil)); loc[len(loc)-1] != "format" {
				t.Fatalf("unknown format: %v", loc)
			}

			// Another workspace sees none of it.
			_, otherKey := e.newUser("other@example.com")
			for _, path := range []string{"", "/audio", "/export?format=txt"} {
				expect(t, e.do("GET", "/api/speech-to-text/transcripts/"+id+path, otherKey, nil), 404)
			}
			expect(t, e.do("PATCH", "/api/speech-to-text/transcripts/"+id, otherKey, map[string]any{"text": "mine"}), 404)
			if l := e.do("GET", "/api/speech-to-text/transcripts", otherKey, nil); strings.Contains(string(l.body), id) {
				t.Fatalf("the other workspace lists it: %s", l.body)
			}

			// Deleting the transcript deletes its audio.
			expect(t, e.do("DELETE", "/v1/speech-to-text/transcripts/"+id, e.key, nil), 200)
			if ok, _ := e.app.Blob.Exists(ctx, row.AudioKey); ok {
				t.Fatal("the audio outlived its transcript")
			}
			expect(t, e.do("GET", "/api/speech-to-text/transcripts/"+id+"/audio", e.key, nil), 404)

		})
	}
}
