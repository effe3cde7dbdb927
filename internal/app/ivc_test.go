package app_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/plan"
	"timbre/internal/store"
	"timbre/internal/testdb"
	"timbre/internal/voiceprint"
)

// upload is one file part of a clone form.
type upload struct {
	field, name, contentType string
	data                     []byte
}

// postFiles sends a multipart form with several file parts and text fields.
func (e *env) postFiles(path, key string, files []upload, fields map[string]string) *resp {
	e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, f.field, f.name))
		ct := f.contentType
		if ct == "" {
			ct = "audio/mpeg"
		}
		h.Set("Content-Type", ct)
		w, _ := mw.CreatePart(h)
		_, _ = w.Write(f.data)
	}
	_ = mw.Close()
	req, _ := http.NewRequest("POST", e.srv.URL+path, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("xi-api-key", key)
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	var body bytes.Buffer
	_, _ = body.ReadFrom(res.Body)
	return &resp{res, body.Bytes()}
}

// cloneEnv is an env on a plan (its embedded voiceprint cloner, as served).
func cloneEnv(t *testing.T, d store.Dialect, tier string) *env {
	e := newEnv(t, d)
	if err := e.app.DB.SetTier(context.Background(), e.user.WorkspaceID, tier); err != nil {
		t.Fatal(err)
	}
	return e
}

type voiceJSON struct {
	VoiceID     string            `json:"voice_id"`
	Name        string            `json:"name"`
	Category    string            `json:"category"`
	Description string            `json:"description"`
	Labels      map[string]string `json:"labels"`
	Samples     []struct {
		SampleID     string  `json:"sample_id"`
		FileName     string  `json:"file_name"`
		MimeType     string  `json:"mime_type"`
		SizeBytes    int64   `json:"size_bytes"`
		Hash         string  `json:"hash"`
		DurationSecs float64 `json:"duration_secs"`
	} `json:"samples"`
}

func (e *env) voice(id string) voiceJSON {
	e.t.Helper()
	r := e.do("GET", "/v1/voices/"+id, e.key, nil)
	expect(e.t, r, 200)
	var v voiceJSON
	if err := json.Unmarshal(r.body, &v); err != nil {
		e.t.Fatal(err)
	}
	return v
}

func (e *env) subscription() map[string]any {
	e.t.Helper()
	r := e.do("GET", "/v1/user/subscription", e.key, nil)
	expect(e.t, r, 200)
	return r.json(e.t)
}

// sampleBlobs lists the sample audio files in the env's blob directory.
func (e *env) sampleBlobs() []string {
	e.t.Helper()
	var out []string
	root := filepath.Join(e.app.Cfg.DataDir, "blobs", "voice-samples")
	_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestInstantClone: a clone made from two recordings (repeated files parts, labels as a JSON
// string) lists its samples with every required field, serves their audio, speaks, takes a
// voice slot and an add/edit; edit adds a sample (files[]); samples and the voice delete with
// their audio; other workspaces see none of it; premade voices cannot be deleted.
func TestInstantClone(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := cloneEnv(t, d, "starter")
			ctx := context.Background()
			one := e.speak("The quick brown fox jumps over the lazy dog near the river bank.")
			two := e.speak("She sells sea shells by the sea shore every summer morning.")

			r := e.postFiles("/v1/voices/add", e.key, []upload{{"files", "one.mp3", "audio/mpeg", one}, {"files", "two.mp3", "audio/mpeg", two}},
				map[string]string{"name": "My clone", "description": "Me reading", "labels": `{"accent":"american","gender":"female"}`})
			expect(t, r, 200)
			add := r.json(t)
			id, _ := add["voice_id"].(string)
			if id == "" || add["requires_verification"] != false {
				t.Fatalf("add answered %s", r.body)
			}
			v := e.voice(id)
			if v.Category != "cloned" || v.Name != "My clone" || v.Description != "Me reading" || v.Labels["accent"] != "american" || len(v.Samples) != 2 {
				t.Fatalf("voice %+v", v)
			}
			if s := v.Samples[0]; s.FileName != "one.mp3" || s.MimeType != "audio/mpeg" || s.SizeBytes != int64(len(one)) || s.Hash != sha(one) || s.DurationSecs < 2 {
				t.Fatalf("sample %+v", s)
			}
			r = e.do("GET", "/v1/voices/"+id+"/samples/"+v.Samples[1].SampleID+"/audio", e.key, nil)
			expect(t, r, 200)
			if !bytes.Equal(r.body, two) || r.Header.Get("Content-Type") != "audio/mpeg" {
				t.Fatalf("sample audio differs (%d bytes, %s)", len(r.body), r.Header.Get("Content-Type"))
			}
			// The clone speaks.
			// The clone speaks at the recordings' pitch (the embedded cloner's promise: within 10 %).
			r = e.do("POST", "/v1/text-to-speech/"+id+"?output_format=pcm_16000", e.key, map[string]any{"text": "Hello from my cloned voice. The birch canoe slid on the smooth planks."})
			expect(t, r, 200)
			said, err := voiceprint.Analyse(engine.PCM{Samples: audio.PCMSamples(r.body), SampleRate: 16000})
			if err != nil {
				t.Fatalf("clone speech: %v", err)
			}
			row, err := e.app.DB.Voice(ctx, e.user.WorkspaceID, id)
			if err != nil {
				t.Fatal(err)
			}
			var vp voiceprint.Print
			if err := json.Unmarshal([]byte(row.Voiceprint), &vp); err != nil || vp.F0Median == 0 || row.Engine != "flite" {
				t.Fatalf("stored voice: %+v (%v)", row, err)
			}
			if math.Abs(said.F0Median/vp.F0Median-1) > 0.10 {
				t.Fatalf("the clone speaks at %.0f Hz, the recordings at %.0f Hz", said.F0Median, vp.F0Median)
			}
			t.Logf("clone: base %s, recordings %.0f Hz, its speech %.0f Hz", row.EngineVoice, vp.F0Median, said.F0Median)
			sub := e.subscription()
			tier := plan.Get("starter")
			if sub["voice_slots_used"] != 1.0 || sub["voice_add_edit_counter"] != 1.0 || sub["voice_limit"] != float64(tier.VoiceLimit) ||
				sub["max_voice_add_edits"] != float64(plan.MaxVoiceAddEdits(tier)) || sub["can_use_instant_voice_cloning"] != true {
				t.Fatalf("subscription %v", sub)
			}
			// v2 lists it with its samples.
			r = e.do("GET", "/v2/voices?category=cloned", e.key, nil)
			expect(t, r, 200)
			if !strings.Contains(string(r.body), v.Samples[0].SampleID) {
				t.Fatalf("v2 list lacks the samples: %.300s", r.body)
			}

			// Edit: rename and add a sample through files[]; it counts as an edit.
			three := e.speak("Peter Piper picked a peck of pickled peppers for the party.")
			r = e.postFiles("/v1/voices/"+id+"/edit", e.key, []upload{{"files[]", "three.mp3", "audio/mpeg", three}}, map[string]string{"name": "My clone 2"})
			expect(t, r, 200)
			if v = e.voice(id); v.Name != "My clone 2" || len(v.Samples) != 3 || v.Description != "Me reading" {
				t.Fatalf("after edit %+v", v)
			}
			if sub = e.subscription(); sub["voice_add_edit_counter"] != 2.0 || sub["voice_slots_used"] != 1.0 {
				t.Fatalf("after edit subscription %v", sub)
			}
			if n := len(e.sampleBlobs()); n != 3 {
				t.Fatalf("%d sample blobs, want 3", n)
			}

			// Another workspace sees none of it.
			_, other := e.newUser("other@example.com")
			for _, c := range []struct{ method, path string }{
				{"GET", "/v1/voices/" + id}, {"DELETE", "/v1/voices/" + id},
				{"GET", "/v1/voices/" + id + "/samples/" + v.Samples[0].SampleID + "/audio"},
				{"DELETE", "/v1/voices/" + id + "/samples/" + v.Samples[0].SampleID},
			} {
				r = e.do(c.method, c.path, other, nil)
				if expect(t, r, 404); detailStatus(t, r) != "voice_not_found" {
					t.Fatalf("%s %s from another workspace: %s", c.method, c.path, r.body)
				}
			}
			r = e.postFiles("/v1/voices/"+id+"/edit", other, nil, map[string]string{"name": "stolen"})
			expect(t, r, 404)

			// A premade voice cannot be deleted; an unknown sample is a 404.
			r = e.do("DELETE", "/v1/voices/"+rachel, e.key, nil)
			if expect(t, r, 400); detailStatus(t, r) != "voice_not_editable" {
				t.Fatalf("premade delete: %s", r.body)
			}
			r = e.do("DELETE", "/v1/voices/"+id+"/samples/nope", e.key, nil)
			expect(t, r, 404)

			// Samples delete one by one (the voice is fitted again); the last one stays.
			r = e.do("DELETE", "/v1/voices/"+id+"/samples/"+v.Samples[0].SampleID, e.key, nil)
			expect(t, r, 200)
			r = e.do("DELETE", "/v1/voices/"+id+"/samples/"+v.Samples[1].SampleID, e.key, nil)
			expect(t, r, 200)
			r = e.do("DELETE", "/v1/voices/"+id+"/samples/"+v.Samples[2].SampleID, e.key, nil)
			if expect(t, r, 400); detailStatus(t, r) != "last_sample" {
				t.Fatalf("last sample: %s", r.body)
			}
			if v = e.voice(id); len(v.Samples) != 1 || len(e.sampleBlobs()) != 1 {
				t.Fatalf("after sample deletes: %d samples, %d blobs", len(v.Samples), len(e.sampleBlobs()))
			}

			// The voice goes with its audio and frees its slot.
			r = e.do("DELETE", "/v1/voices/"+id, e.key, nil)
			expect(t, r, 200)
			if r.json(t)["status"] != "ok" {
				t.Fatalf("delete: %s", r.body)
			}
			expect(t, e.do("GET", "/v1/voices/"+id, e.key, nil), 404)
			if n := len(e.sampleBlobs()); n != 0 {
				t.Fatalf("%d sample blobs left", n)
			}
			if sub = e.subscription(); sub["voice_slots_used"] != 0.0 {
				t.Fatalf("slots after delete %v", sub["voice_slots_used"])
			}
		})
	}
}

// TestInstantCloneBadInput: unusable recordings and fields are 422s naming the field; nothing is
// stored (no voice, no sample audio, no add/edit counted); the free plan cannot clone.
func TestInstantCloneBadInput(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := cloneEnv(t, d, "free")
			good := e.speak("The quick brown fox jumps over the lazy dog near the river bank.")
			r := e.postFiles("/v1/voices/add", e.key, []upload{{"files", "a.mp3", "", good}}, map[string]string{"name": "x"})
			if expect(t, r, 403); detailStatus(t, r) != "can_not_use_instant_voice_cloning" {
				t.Fatalf("free plan: %s", r.body)
			}
			if sub := e.subscription(); sub["can_use_instant_voice_cloning"] != false {
				t.Fatalf("free plan can clone? %v", sub)
			}
			if err := e.app.DB.SetTier(context.Background(), e.user.WorkspaceID, "creator"); err != nil {
				t.Fatal(err)
			}
			silence := audio.WAV(make([]int16, 32000), 16000)
			short := audio.WAV(make([]int16, 800), 16000) // 50 ms
			cases := []struct {
				name   string
				files  []upload
				fields map[string]string
				field  string
			}{
				{"no files", nil, map[string]string{"name": "x"}, "files"},
				{"no name", []upload{{"files", "a.mp3", "", good}}, nil, "name"},
				{"empty", []upload{{"files", "a.mp3", "", []byte{}}}, map[string]string{"name": "x"}, "files"},
				{"short", []upload{{"files", "a.wav", "audio/wav", short}}, map[string]string{"name": "x"}, "files"},
				{"silent", []upload{{"files", "a.wav", "audio/wav", silence}}, map[string]string{"name": "x"}, "files"},
				{"corrupt", []upload{{"files", "a.mp3", "", bytes.Repeat([]byte("garbage!"), 500)}}, map[string]string{"name": "x"}, "files"},
				{"wrong type", []upload{{"files", "a.txt", "text/plain", good}}, map[string]string{"name": "x"}, "files"},
				{"oversize", []upload{{"files", "big.wav", "audio/wav", make([]byte, 26<<20)}}, map[string]string{"name": "x"}, "files"},
				{"good then bad", []upload{{"files", "a.mp3", "", good}, {"files", "b.wav", "audio/wav", silence}}, map[string]string{"name": "x"}, "files"},
				{"labels", []upload{{"files", "a.mp3", "", good}}, map[string]string{"name": "x", "labels": "[1,2]"}, "labels"},
				{"description", []upload{{"files", "a.mp3", "", good}}, map[string]string{"name": "x", "description": strings.Repeat("d", 1001)}, "description"},
				{"noise flag", []upload{{"files", "a.mp3", "", good}}, map[string]string{"name": "x", "remove_background_noise": "maybe"}, "remove_background_noise"},
			}
			for _, c := range cases {
				r := e.postFiles("/v1/voices/add", e.key, c.files, c.fields)
				loc := fieldError(t, r)
				if len(loc) < 2 || loc[1] != c.field {
					t.Fatalf("%s: loc %v, want %s: %s", c.name, loc, c.field, r.body)
				}
			}
			sub := e.subscription()
			if sub["voice_slots_used"] != 0.0 || sub["voice_add_edit_counter"] != 0.0 || len(e.sampleBlobs()) != 0 {
				t.Fatalf("bad input left something: %v, blobs %v", sub, e.sampleBlobs())
			}
			// remove_background_noise runs the recording through RNNoise and still clones.
			r = e.postFiles("/v1/voices/add", e.key, []upload{{"files", "a.mp3", "", good}}, map[string]string{"name": "clean", "remove_background_noise": "true"})
			expect(t, r, 200)
		})
	}
}

// TestInstantCloneLimits: with room for exactly two more voices, six parallel adds make two; the
// rest are refused with the plan's limit named, and their audio is not kept. When the period's
// add/edit allowance is used up, adds and edits are refused.
func TestInstantCloneLimits(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := cloneEnv(t, d, "starter") // 10 voices
			ctx := context.Background()
			tier := plan.Get("starter")
			now := time.Now().Unix()
			err := e.app.DB.InTx(ctx, func(tx *store.Tx) error {
				for i := 0; i < tier.VoiceLimit-2; i++ {
					err := tx.CreateVoice(ctx, store.Voice{ID: fmt.Sprintf("filler%02d", i), WorkspaceID: e.user.WorkspaceID, Name: "filler", Category: "cloned",
						Labels: "{}", Engine: "flite", EngineVoice: "awb", Language: "en", Prosody: "{}", CreatedAt: now})
					if err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			good := e.speak("The quick brown fox jumps over the lazy dog near the river bank.")
			const n = 6
			codes := make([]int, n)
			bodies := make([]string, n)
			var wg sync.WaitGroup
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					r := e.postFiles("/v1/voices/add", e.key, []upload{{"files", "a.mp3", "", good}}, map[string]string{"name": fmt.Sprint("v", i)})
					codes[i], bodies[i] = r.StatusCode, string(r.body)
				}(i)
			}
			wg.Wait()
			ok := 0
			for i, c := range codes {
				switch {
				case c == 200:
					ok++
				case c == 400 && strings.Contains(bodies[i], "voice_limit_reached") && strings.Contains(bodies[i], fmt.Sprintf("/ %d", tier.VoiceLimit)):
				default:
					t.Fatalf("add %d: %d %s", i, c, bodies[i])
				}
			}
			if ok != 2 {
				t.Fatalf("%d adds succeeded with room for 2: %v", ok, codes)
			}
			sub := e.subscription()
			if sub["voice_slots_used"] != float64(tier.VoiceLimit) || sub["voice_add_edit_counter"] != 2.0 || len(e.sampleBlobs()) != 2 {
				t.Fatalf("after the race: %v, %d blobs", sub, len(e.sampleBlobs()))
			}

			// Use up the period's adds and edits: edits and adds are refused, naming the limit.
			err = e.app.DB.InTx(ctx, func(tx *store.Tx) error {
				for {
					ok, err := tx.CountVoiceAddEdit(ctx, e.user.WorkspaceID, plan.MaxVoiceAddEdits(tier), time.Now())
					if err != nil || !ok {
						return err
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			r := e.postFiles("/v1/voices/filler00/edit", e.key, nil, map[string]string{"name": "renamed"})
			if expect(t, r, 400); detailStatus(t, r) != "voice_add_edit_limit_reached" || !strings.Contains(string(r.body), fmt.Sprint(plan.MaxVoiceAddEdits(tier))) {
				t.Fatalf("edit over the allowance: %s", r.body)
			}
			expect(t, e.do("DELETE", "/v1/voices/filler00", e.key, nil), 200)
			r = e.postFiles("/v1/voices/add", e.key, []upload{{"files", "a.mp3", "", good}}, map[string]string{"name": "late"})
			if expect(t, r, 400); detailStatus(t, r) != "voice_add_edit_limit_reached" {
				t.Fatalf("add over the allowance: %s", r.body)
			}
			if sub := e.subscription(); sub["voice_add_edit_counter"] != float64(plan.MaxVoiceAddEdits(tier)) || len(e.sampleBlobs()) != 2 {
				t.Fatalf("after refusals: %v", sub)
			}
		})
	}
}
