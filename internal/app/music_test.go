package app_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"strings"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/music"
	"timbre/internal/plan"
	"timbre/internal/testdb"
)

type musicHistory struct {
	Items []struct {
		SongID          string      `json:"song_id"`
		Title           string      `json:"title"`
		Prompt          *string     `json:"prompt"`
		CompositionPlan *music.Plan `json:"composition_plan"`
		Seed            int64       `json:"seed"`
		Engine          string      `json:"engine"`
		DurationMs      int64       `json:"duration_ms"`
		DownloadURL     string      `json:"download_url"`
	} `json:"items"`
	HasMore bool `json:"has_more"`
}

func (e *env) musicHistory(key, query string) musicHistory {
	e.t.Helper()
	r := e.do("GET", "/v1/music/history"+query, key, nil)
	expect(e.t, r, 200)
	var h musicHistory
	if err := json.Unmarshal(r.body, &h); err != nil {
		e.t.Fatal(err)
	}
	return h
}

// TestMusic: a plan is written from a prompt and can be edited; composing from it (plain, stream
// and detailed) gives the plan's length to 50 ms and its tempo within 5 %, the same bytes for the
// same seed, a charge of 1,000 credits a minute, and a song in the member's music history.
func TestMusic(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			ctx := context.Background()
			r := e.do("POST", "/v1/music/plan", e.key, map[string]any{"prompt": "A jazz tune in D minor with saxophone", "music_length_ms": 12000})
			expect(t, r, 200)
			var p music.Plan
			if err := json.Unmarshal(r.body, &p); err != nil || p.DurationMs() != 12000 || len(p.Sections) == 0 {
				t.Fatalf("plan: %+v %v", p, err)
			}
			if !strings.Contains(strings.Join(p.PositiveGlobalStyles, "|"), "D minor") {
				t.Fatalf("the plan lost the key: %v", p.PositiveGlobalStyles)
			}
			// A plan written from a source plan keeps its sections, rescaled to the length asked.
			src := e.do("POST", "/v1/music/plan", e.key, map[string]any{"prompt": "rock", "music_length_ms": 24000, "source_composition_plan": p})
			expect(t, src, 200)
			var sp music.Plan
			if err := json.Unmarshal(src.body, &sp); err != nil || sp.DurationMs() != 24000 || len(sp.Sections) != len(p.Sections) || sp.PositiveGlobalStyles[0] != "rock" {
				t.Fatalf("plan from a source: %+v %v", sp, err)
			}

			// The user edits the plan: the tempo is set by a style.
			p.PositiveGlobalStyles = append(p.PositiveGlobalStyles, "126 bpm")
			before := e.workspace().CharacterCount
			body := map[string]any{"composition_plan": p, "seed": 5}
			a := e.do("POST", "/v1/music?output_format=mp3_44100_128", e.key, body)
			expect(t, a, 200)
			songID := a.Header.Get("song-id")
			if a.Header.Get("Content-Type") != "audio/mpeg" || songID == "" {
				t.Fatalf("headers %v", a.Header)
			}
			pcm, rate, err := audio.Decode(ctx, a.body)
			if err != nil {
				t.Fatal(err)
			}
			if got := 1000 * float64(len(pcm)) / float64(rate); math.Abs(got-12000) > 50 {
				t.Fatalf("the song lasts %.0f ms, the plan 12000", got)
			}
			if bpm := music.Tempo(pcm, rate); math.Abs(bpm-126)/126 > 0.05 {
				t.Fatalf("measured tempo %.1f bpm, the plan says 126", bpm)
			}
			want := plan.MusicCredits(12000)
			if got := e.workspace().CharacterCount - before; got != want || want != 200 {
				t.Fatalf("charged %d credits, want %d", got, want)
			}

			// The same seed gives the same bytes, on the stream route too.
			s := e.do("POST", "/v1/music/stream?output_format=mp3_44100_128", e.key, body)
			expect(t, s, 200)
			if !bytes.Equal(s.body, a.body) || len(s.TransferEncoding) == 0 {
				t.Fatalf("stream: %d bytes (plain %d), transfer %v", len(s.body), len(a.body), s.TransferEncoding)
			}

			// Detailed: multipart/mixed with the plan and metadata, then the same audio.
			dt := e.do("POST", "/v1/music/detailed", e.key, body)
			expect(t, dt, 200)
			mt, params, err := mime.ParseMediaType(dt.Header.Get("Content-Type"))
			if err != nil || mt != "multipart/mixed" || dt.Header.Get("song-id") == "" {
				t.Fatalf("detailed content type %q", dt.Header.Get("Content-Type"))
			}
			if !bytes.HasPrefix(dt.body, []byte("--"+params["boundary"]+"\r\n")) {
				t.Fatalf("the SDK reads the boundary from the first line: %.80q", dt.body)
			}
			mr := multipart.NewReader(bytes.NewReader(dt.body), params["boundary"])
			jp, err := mr.NextPart()
			if err != nil || jp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("json part: %v %v", jp, err)
			}
			var meta map[string]any
			if err := json.NewDecoder(jp).Decode(&meta); err != nil {
				t.Fatal(err)
			}
			sm, _ := meta["song_metadata"].(map[string]any)
			for _, k := range []string{"title", "description", "genres", "languages", "is_explicit"} {
				if _, ok := sm[k]; !ok {
					t.Fatalf("song_metadata lacks %s: %v", k, meta)
				}
			}
			if _, ok := meta["words_timestamps"]; !ok || meta["composition_plan"] == nil {
				t.Fatalf("metadata %v", meta)
			}
			ap, err := mr.NextPart()
			if err != nil || !strings.Contains(ap.Header.Get("Content-Disposition"), "filename=") {
				t.Fatalf("audio part: %v", err)
			}
			detailedAudio, _ := io.ReadAll(ap)
			if !bytes.Equal(detailedAudio, a.body) {
				t.Fatalf("detailed audio: %d bytes, plain %d", len(detailedAudio), len(a.body))
			}

			// Detailed as server-sent events: the plan, the metadata, the audio in chunks, done.
			ev := e.do("POST", "/v1/music/detailed/stream", e.key, body)
			expect(t, ev, 200)
			if !strings.HasPrefix(ev.Header.Get("Content-Type"), "text/event-stream") || ev.Header.Get("song-id") == "" {
				t.Fatalf("events: %v", ev.Header)
			}
			var types []string
			var sseAudio []byte
			for _, block := range strings.Split(strings.TrimSpace(string(ev.body)), "\n\n") {
				data, ok := strings.CutPrefix(block[strings.Index(block, "\n")+1:], "data: ")
				if !ok {
					t.Fatalf("event %q", block)
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(data), &m); err != nil {
					t.Fatal(err)
				}
				typ := m["type"].(string)
				if len(types) == 0 || types[len(types)-1] != typ {
					types = append(types, typ)
				}
				if typ == "audio_chunk" {
					chunk, err := base64.StdEncoding.DecodeString(m["audio_base64"].(string))
					if err != nil {
						t.Fatal(err)
					}
					sseAudio = append(sseAudio, chunk...)
				}
			}
			if strings.Join(types, ",") != "composition_plan,song_metadata,audio_chunk,done" || !bytes.Equal(sseAudio, a.body) {
				t.Fatalf("events %v, %d audio bytes (plain %d)", types, len(sseAudio), len(a.body))
			}

			// Composing from a prompt: pcm at the asked length.
			pr := e.do("POST", "/v1/music?output_format=pcm_22050", e.key, map[string]any{"prompt": "calm ambient piano", "music_length_ms": 4000, "force_instrumental": true})
			expect(t, pr, 200)
			if n := len(pr.body) / 2; math.Abs(float64(n)/22.05-4000) > 50 {
				t.Fatalf("pcm song has %d samples", n)
			}
			if got := e.workspace().CharacterCount - before; got != 4*want+plan.MusicCredits(4000) {
				t.Fatalf("charged %d credits in all", got)
			}

			// Lyrics are sung (flite on the melody): from the prompt's lyrics_text.
			sung := e.do("POST", "/v1/music", e.key, map[string]any{"prompt": "pop ballad", "music_length_ms": 8000,
				"lyrics_text": "[Verse]\nHold on to the feeling\nLet it rise and come alive"})
			expect(t, sung, 200)
			if pcm, rate, err := audio.Decode(ctx, sung.body); err != nil || math.Abs(1000*float64(len(pcm))/float64(rate)-8000) > 50 {
				t.Fatalf("sung song: %v", err)
			}

			// Detailed with_timestamps: the sung words and when they sound.
			lp := *good(t, e)
			lp.Sections[0].Lines = []string{"hold on to the feeling"}
			ws := e.do("POST", "/v1/music/detailed", e.key, map[string]any{"composition_plan": lp, "with_timestamps": true, "seed": 1})
			expect(t, ws, 200)
			if !bytes.Contains(ws.body, []byte(`"words_timestamps":[{"word":"hold","start_ms":`)) {
				t.Fatalf("words_timestamps: %.400s", ws.body)
			}

			// The history: seven songs, newest first; the download is the song.
			h := e.musicHistory(e.key, "")
			if len(h.Items) != 7 || h.HasMore {
				t.Fatalf("history: %+v", h)
			}
			var found bool
			for _, it := range h.Items {
				if it.Prompt != nil && *it.Prompt == "pop ballad" && (it.CompositionPlan == nil || !it.CompositionPlan.HasLyrics()) {
					t.Fatalf("the sung song's plan has no lines: %+v", it.CompositionPlan)
				}
				if it.SongID == songID {
					found = true
					if it.Seed != 5 || it.Engine != "fluidsynth" || it.DurationMs != 12000 || it.Prompt != nil || it.CompositionPlan == nil {
						t.Fatalf("item %+v", it)
					}
					dl := e.do("GET", it.DownloadURL, e.key, nil)
					expect(t, dl, 200)
					if !bytes.Equal(dl.body, a.body) {
						t.Fatal("the download differs")
					}
				}
			}
			if !found {
				t.Fatalf("song %s not in the history", songID)
			}
			if h := e.musicHistory(e.key, "?search=AMBIENT"); len(h.Items) != 1 || *h.Items[0].Prompt != "calm ambient piano" {
				t.Fatalf("search: %+v", h)
			}
			_, otherKey := e.newUser("other@example.com")
			if h := e.musicHistory(otherKey, ""); len(h.Items) != 0 {
				t.Fatalf("another workspace lists %+v", h)
			}
			expect(t, e.do("GET", "/v1/music/history/"+songID+"/audio", otherKey, nil), 404)
			expect(t, e.do("DELETE", "/v1/music/history/"+songID, otherKey, nil), 404)
			expect(t, e.do("DELETE", "/v1/music/history/"+songID, e.key, nil), 204)
			expect(t, e.do("GET", "/v1/music/history/"+songID+"/audio", e.key, nil), 404)
		})
	}
}

// TestMusicRefusals: bad input is a 422 naming the field, and nothing is charged or kept.
func TestMusicRefusals(t *testing.T) {
	e := newEnv(t, "sqlite")
	good := music.PlanFromPrompt("pop", 6000)
	withPlan := func(edit func(p *music.Plan)) map[string]any {
		p := *good
		p.Sections = append([]music.Section(nil), good.Sections...)
		edit(&p)
		return map[string]any{"composition_plan": p}
	}
	before := e.workspace().CharacterCount
	cases := []struct {
		name  string
		path  string
		body  any
		field []any
	}{
		{"both", "/v1/music", map[string]any{"prompt": "pop", "composition_plan": good}, []any{"body", "composition_plan"}},
		{"neither", "/v1/music", map[string]any{"seed": 1}, []any{"body", "prompt"}},
		{"empty prompt", "/v1/music", map[string]any{"prompt": "  "}, []any{"body", "prompt"}},
		{"long prompt", "/v1/music", map[string]any{"prompt": strings.Repeat("a", 4101)}, []any{"body", "prompt"}},
		{"short", "/v1/music", map[string]any{"prompt": "pop", "music_length_ms": 2999}, []any{"body", "music_length_ms"}},
		{"long", "/v1/music/stream", map[string]any{"prompt": "pop", "music_length_ms": 600001}, []any{"body", "music_length_ms"}},
		{"length with plan", "/v1/music", map[string]any{"composition_plan": good, "music_length_ms": 5000}, []any{"body", "music_length_ms"}},
		{"seed", "/v1/music", map[string]any{"prompt": "pop", "seed": -1}, []any{"body", "seed"}},
		{"model", "/v1/music", map[string]any{"prompt": "pop", "model_id": "music_v9"}, []any{"body", "model_id"}},
		{"no sections", "/v1/music", withPlan(func(p *music.Plan) { p.Sections = nil }), []any{"body", "composition_plan", "sections"}},
		{"short section", "/v1/music/detailed", withPlan(func(p *music.Plan) { p.Sections[0].DurationMs = 1000 }), []any{"body", "composition_plan", "sections", float64(0), "duration_ms"}},
		{"nameless section", "/v1/music", withPlan(func(p *music.Plan) { p.Sections[0].SectionName = "" }), []any{"body", "composition_plan", "sections", float64(0), "section_name"}},
		{"long line", "/v1/music", withPlan(func(p *music.Plan) { p.Sections[0].Lines = []string{strings.Repeat("la ", 70)} }), []any{"body", "composition_plan", "sections", float64(0), "lines", float64(0)}},
		{"long lyrics", "/v1/music", map[string]any{"prompt": "pop", "lyrics_text": strings.Repeat("la ", 1400)}, []any{"body", "lyrics_text"}},
		{"plan without prompt", "/v1/music/plan", map[string]any{"music_length_ms": 5000}, []any{"body", "prompt"}},
		{"plan length", "/v1/music/plan", map[string]any{"prompt": "pop", "music_length_ms": 100}, []any{"body", "music_length_ms"}},
	}
	for _, c := range cases {
		loc := fieldError(t, e.do("POST", c.path, e.key, c.body))
		if !equalLoc(loc, c.field) {
			t.Fatalf("%s: loc %v, want %v", c.name, loc, c.field)
		}
	}
	loc := fieldError(t, e.do("POST", "/v1/music?output_format=wav_44100", e.key, map[string]any{"prompt": "pop"}))
	if !equalLoc(loc, []any{"query", "output_format"}) {
		t.Fatalf("output_format: %v", loc)
	}
	if got := e.workspace().CharacterCount; got != before {
		t.Fatalf("refusals charged %d credits", got-before)
	}
	if h := e.musicHistory(e.key, ""); len(h.Items) != 0 {
		t.Fatalf("refusals kept %+v", h)
	}
	// A format above the plan: 403, nothing charged.
	r := e.do("POST", "/v1/music?output_format=mp3_48000_320", e.key, map[string]any{"prompt": "pop", "music_length_ms": 3000})
	expect(t, r, 403)
	// Over the quota: refused with quota_exceeded, nothing charged or stored.
	rawExec(t, e.app.DB, `UPDATE workspaces SET character_count = 9999 WHERE id = ?`, e.user.WorkspaceID)
	r = e.do("POST", "/v1/music/stream", e.key, map[string]any{"prompt": "pop", "music_length_ms": 3000})
	expect(t, r, 401)
	if detailStatus(t, r) != "quota_exceeded" || e.workspace().CharacterCount != 9999 || countRows(t, e, "music_songs") != 0 {
		t.Fatalf("over quota: %s", r.body)
	}
}

// good is a valid 6-second plan.
func good(t *testing.T, e *env) *music.Plan {
	t.Helper()
	r := e.do("POST", "/v1/music/plan", e.key, map[string]any{"prompt": "pop", "music_length_ms": 6000})
	expect(t, r, 200)
	var p music.Plan
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

func equalLoc(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
