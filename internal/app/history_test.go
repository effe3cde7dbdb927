package app_test

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"timbre/internal/history"
	"timbre/internal/store"
	"timbre/internal/voice"
)

// generate makes a history item and returns its id.
func (e *env) generate(key, voiceID, text string) string {
	e.t.Helper()
	r := e.do("POST", "/v1/text-to-speech/"+voiceID+"?output_format=mp3_22050_32", key, map[string]any{"text": text})
	expect(e.t, r, 200)
	return r.Header.Get("history-item-id")
}

func TestHistoryListAndPaging(t *testing.T) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			var ids []string
			for i, text := range []string{"Alpha one.", "Bravo two.", "Charlie three.", "Delta four.", "Echo five."} {
				voiceID := sarah
				if i%2 == 1 {
					voiceID = rachel
				}
				ids = append(ids, e.generate(e.key, voiceID, text))
			}
			// Newest first, two at a time, with no gaps or repeats.
			var seen []string
			after := ""
			for page := 0; page < 5; page++ {
				r := e.do("GET", "/v1/history?page_size=2&start_after_history_item_id="+after, e.key, nil)
				expect(t, r, 200)
				m := r.json(t)
				for _, k := range []string{"history", "has_more", "last_history_item_id", "scanned_until"} {
					if _, ok := m[k]; !ok {
						t.Fatalf("missing key %s", k)
					}
				}
				for _, it := range m["history"].([]any) {
					item := it.(map[string]any)
					for _, k := range []string{"history_item_id", "date_unix", "character_count_change_from", "character_count_change_to", "content_type", "state"} {
						if _, ok := item[k]; !ok {
							t.Fatalf("history item lacks required key %s", k)
						}
					}
					seen = append(seen, item["history_item_id"].(string))
				}
				if m["has_more"] != true {
					break
				}
				after = m["last_history_item_id"].(string)
			}
			if strings.Join(seen, ",") != strings.Join(reverse(ids), ",") {
				t.Fatalf("paged %v, want %v", seen, reverse(ids))
			}
			// Filters.
			r := e.do("GET", "/v1/history?voice_id="+rachel, e.key, nil)
			if n := len(r.json(t)["history"].([]any)); n != 2 {
				t.Errorf("voice filter: %d items, want 2", n)
			}
			r = e.do("GET", "/v1/history?search=charlie", e.key, nil)
			if n := len(r.json(t)["history"].([]any)); n != 1 {
				t.Errorf("search: %d items, want 1", n)
			}
			fieldError(t, e.do("GET", "/v1/history?page_size=1001", e.key, nil))
			fieldError(t, e.do("GET", "/v1/history?source=XYZ", e.key, nil))
			// Another workspace sees none of it.
			_, other := e.newUser("other@example.com")
			if n := e.historyCount(other); n != 0 {
				t.Errorf("another workspace sees %d items", n)
			}
			expect(t, e.do("GET", "/v1/history/"+ids[0], other, nil), 404)
			expect(t, e.do("GET", "/v1/history/"+ids[0]+"/audio", other, nil), 404)
			expect(t, e.do("DELETE", "/v1/history/"+ids[0], other, nil), 404)
		})
	}
}

func reverse(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[len(s)-1-i] = x
	}
	return out
}

func TestHistoryDownload(t *testing.T) {
	e := newEnv(t, store.SQLite)
	a := e.generate(e.key, sarah, "Hello: world / test?")
	b := e.generate(e.key, rachel, "Second item, spoken by Rachel.")
	// One id: the audio file with the spec's name rules.
	r := e.do("POST", "/v1/history/download", e.key, map[string]any{"history_item_ids": []string{a}})
	expect(t, r, 200)
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Disposition"))
	if err != nil {
		t.Fatal(err)
	}
	name := params["filename"]
	if !strings.HasSuffix(name, ".mp3") || !strings.Contains(name, "Sarah") || !strings.Contains(name, "_s50_sb75_se0_b_") || strings.ContainsAny(name, " :/?") {
		t.Errorf("file name %q", name)
	}
	if !strings.HasSuffix(name, "Hello_world__test.mp3") {
		t.Errorf("file name %q: text part should be cleaned and cut to 20 characters", name)
	}
	checkSpeech(t, r.body, 0.5, 5)
	// wav conversion.
	r = e.do("POST", "/v1/history/download", e.key, map[string]any{"history_item_ids": []string{a}, "output_format": "wav"})
	expect(t, r, 200)
	if !bytes.HasPrefix(r.body, []byte("RIFF")) || r.Header.Get("Content-Type") != "audio/wav" {
		t.Errorf("wav download: %q %.4s", r.Header.Get("Content-Type"), r.body)
	}
	// Several ids: a zip named history.zip with one file each.
	r = e.do("POST", "/v1/history/download", e.key, map[string]any{"history_item_ids": []string{a, b}})
	expect(t, r, 200)
	if r.Header.Get("Content-Type") != "application/zip" || !strings.Contains(r.Header.Get("Content-Disposition"), "history.zip") {
		t.Errorf("zip headers %v", r.Header)
	}
	zr, err := zip.NewReader(bytes.NewReader(r.body), int64(len(r.body)))
	if err != nil || len(zr.File) != 2 {
		t.Fatalf("zip: %v, %d files", err, len(zr.File))
	}
	for _, f := range zr.File {
		rc, _ := f.Open()
		data, _ := io.ReadAll(rc)
		rc.Close()
		checkSpeech(t, data, 0.5, 5)
	}
	// A name that is not plain ASCII: an ASCII filename for every client and the UTF-8 filename*.
	lucia := voice.StableID("premade:espeak:Lucía")
	c := e.generate(e.key, lucia, "Hola, ¿qué tal?")
	r = e.do("POST", "/v1/history/download", e.key, map[string]any{"history_item_ids": []string{c}})
	expect(t, r, 200)
	cd := r.Header.Get("Content-Disposition")
	_, params, err = mime.ParseMediaType(cd)
	if err != nil || !strings.Contains(params["filename"], "Lucía") || !strings.Contains(cd, `filename="Timbre_`) || !strings.Contains(cd, "filename*=UTF-8''") {
		t.Errorf("Content-Disposition %q parsed as %v (%v)", cd, params, err)
	}
	fieldError(t, e.do("POST", "/v1/history/download", e.key, map[string]any{"history_item_ids": []string{}}))
	fieldError(t, e.do("POST", "/v1/history/download", e.key, map[string]any{"history_item_ids": []string{a}, "output_format": "flac"}))
	expect(t, e.do("POST", "/v1/history/download", e.key, map[string]any{"history_item_ids": []string{"missing"}}), 404)
}

func TestHistoryFeedbackRules(t *testing.T) {
	e := newEnv(t, store.SQLite)
	id := e.generate(e.key, sarah, "Feedback target.")
	path := "/v1/history/" + id + "/feedback"
	loc := fieldError(t, e.do("POST", path, e.key, map[string]any{"thumbs_up": true, "feedback": "too short"}))
	if loc[1] != "feedback" {
		t.Errorf("loc %v", loc)
	}
	fieldError(t, e.do("POST", path, e.key, map[string]any{"thumbs_up": true, "feedback": strings.Repeat("x", 201)}))
	expect(t, e.do("POST", path, e.key, map[string]any{"thumbs_up": true, "feedback": ""}), 200)
	expect(t, e.do("POST", path, e.key, map[string]any{"thumbs_up": false, "feedback": "The voice mispronounced a word.", "glitches": true}), 200)
	item := e.do("GET", "/v1/history/"+id, e.key, nil).json(t)
	fb := item["feedback"].(map[string]any)
	if fb["thumbs_up"] != false || fb["glitches"] != true || fb["review_status"] != "not_reviewed" {
		t.Errorf("feedback %v", fb)
	}
	// Once reviewed, feedback is locked with the spec's message.
	if err := e.app.DB.SetFeedback(context.Background(), e.user.WorkspaceID, id, `{"thumbs_up": true, "review_status": "reviewed"}`); err != nil {
		t.Fatal(err)
	}
	r := e.do("POST", path, e.key, map[string]any{"thumbs_up": true, "feedback": ""})
	expect(t, r, 400)
	if msg := r.json(t)["detail"].(map[string]any)["message"]; msg != history.ReviewedMessage {
		t.Errorf("message %q", msg)
	}
}

func TestHistoryShareAndDelete(t *testing.T) {
	e := newEnv(t, store.SQLite)
	id := e.generate(e.key, sarah, "Shared with the world.")
	r := e.do("GET", "/v1/history/"+id+"/share-link", e.key, nil)
	expect(t, r, 200)
	m := r.json(t)
	link := m["share_link"].(string)
	if !strings.HasPrefix(link, e.srv.URL+"/share/") || m["public_user_name"] != "owner" {
		t.Fatalf("share %v", m)
	}
	// The same link again.
	if again := e.do("GET", "/v1/history/"+id+"/share-link", e.key, nil).json(t)["share_link"]; again != link {
		t.Errorf("second share link %v differs", again)
	}
	token := link[strings.LastIndex(link, "/")+1:]
	pub := e.do("GET", "/api/share/"+token, "", nil)
	expect(t, pub, 200)
	if pub.json(t)["text"] != "Shared with the world." {
		t.Errorf("public page data %s", pub.body)
	}
	audio := e.do("GET", "/api/share/"+token+"/audio", "", nil)
	expect(t, audio, 200)
	checkSpeech(t, audio.body, 0.5, 5)
	// Deleting the item hides it everywhere, share link included.
	expect(t, e.do("DELETE", "/v1/history/"+id, e.key, nil), 200)
	expect(t, e.do("GET", "/v1/history/"+id, e.key, nil), 404)
	expect(t, e.do("GET", "/api/share/"+token, "", nil), 404)
	expect(t, e.do("DELETE", "/v1/history/"+id, e.key, nil), 404)
}

// The purge job removes deleted items' audio once the retention has passed.
func TestHistoryPurgeJob(t *testing.T) {
	e := newEnv(t, store.SQLite)
	id := e.generate(e.key, sarah, "Soon gone.")
	it, err := e.app.DB.History(context.Background(), e.user.WorkspaceID, id)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, e.do("DELETE", "/v1/history/"+id, e.key, nil), 200)
	w := &history.PurgeWorker{DB: e.app.DB, Blob: e.app.Blob, Retention: time.Hour}
	if err := w.Work(context.Background(), &river.Job[history.PurgeArgs]{}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := e.app.Blob.Exists(context.Background(), it.BlobKey); !ok {
		t.Fatal("audio purged before the retention passed")
	}
	w.Retention = -time.Second
	if err := w.Work(context.Background(), &river.Job[history.PurgeArgs]{}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := e.app.Blob.Exists(context.Background(), it.BlobKey); ok {
		t.Fatal("audio still stored after the purge")
	}
	if rows, _ := e.app.DB.PurgeableHistory(context.Background(), time.Now().Add(time.Hour), 10); len(rows) != 0 {
		t.Errorf("%d deleted rows left", len(rows))
	}
}

// River runs the background jobs: a started app generates the premade voices' previews.
func TestJobsGeneratePreviews(t *testing.T) {
	e := newEnv(t, store.SQLite)
	if err := e.app.StartJobs(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer e.app.StopJobs()
	deadline := time.Now().Add(60 * time.Second)
	for {
		missing, err := e.app.Speech.MissingPreviews(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d previews still missing after 60 s", len(missing))
		}
		time.Sleep(200 * time.Millisecond)
	}
	r := e.do("GET", "/api/voices/"+rachel+"/preview.mp3", "", nil)
	expect(t, r, http.StatusOK)
	checkSpeech(t, r.body, 1, 10)
}
