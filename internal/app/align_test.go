package app_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"timbre/internal/audio"
	"timbre/internal/plan"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

// alignSentence has punctuation and a number, which the aligner reads as "three".
const alignSentence = "Take 3 apples to the park, please."

type alignResponse struct {
	Characters []struct {
		Text  string   `json:"text"`
		Start *float64 `json:"start"`
		End   *float64 `json:"end"`
	} `json:"characters"`
	Words []struct {
		Text  string   `json:"text"`
		Start *float64 `json:"start"`
		End   *float64 `json:"end"`
		Loss  *float64 `json:"loss"`
	} `json:"words"`
	Loss *float64 `json:"loss"`
}

func TestForcedAlignment(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			mp3 := e.speak(alignSentence)
			before := e.workspace().CharacterCount

			r := e.postForm("/v1/forced-alignment", "file", mp3, map[string]any{"text": alignSentence, "enabled_spooled_file": "false"}, "xi-api-key", e.key)
			expect(t, r, 200)
			var a alignResponse
			if err := json.Unmarshal(r.body, &a); err != nil {
				t.Fatal(err)
			}
			// Every field the SDK requires, the caller's words with their punctuation, every
			// character of the text in order.
			if a.Loss == nil || *a.Loss < 0 || *a.Loss > 3 { // about 1 nat per frame for the words really spoken
				t.Fatalf("loss %v", a.Loss)
			}
			wantWords := strings.Fields(alignSentence)
			if len(a.Words) != len(wantWords) {
				t.Fatalf("%d words, want %d: %s", len(a.Words), len(wantWords), r.body)
			}
			prevEnd := 0.0
			for i, w := range a.Words {
				if w.Text != wantWords[i] || w.Start == nil || w.End == nil || w.Loss == nil {
					t.Fatalf("word %d: %+v", i, w)
				}
				if *w.Start < prevEnd || *w.End <= *w.Start || *w.Loss < 0 || *w.Loss >= 10 {
					t.Fatalf("word %q: %v–%v loss %v (previous end %v)", w.Text, *w.Start, *w.End, *w.Loss, prevEnd)
				}
				prevEnd = *w.End
			}
			if len(a.Characters) != utf8.RuneCountInString(alignSentence) {
				t.Fatalf("%d characters, want %d", len(a.Characters), utf8.RuneCountInString(alignSentence))
			}
			var text strings.Builder
			for i, c := range a.Characters {
				if c.Start == nil || c.End == nil || *c.End < *c.Start || (i > 0 && *c.Start < *a.Characters[i-1].End-1e-9) {
					t.Fatalf("character %d %q: %v–%v", i, c.Text, c.Start, c.End)
				}
				text.WriteString(c.Text)
			}
			if text.String() != alignSentence {
				t.Fatalf("characters spell %q", text.String())
			}
			// The first character starts with the first word; the last ends with the audio.
			if *a.Characters[0].Start != *a.Words[0].Start {
				t.Fatalf("first character at %v, first word at %v", *a.Characters[0].Start, *a.Words[0].Start)
			}
			duration := *a.Characters[len(a.Characters)-1].End
			if duration < 1 || duration > 6 {
				t.Fatalf("audio of %v s", duration)
			}

			// Charged as speech to text: the audio's seconds at the plan's rate.
			if got, want := e.workspace().CharacterCount-before, plan.STTCredits(plan.Get("free"), duration); got != want {
				t.Fatalf("charged %d credits, want %d for %.2f s", got, want, duration)
			}
		})
	}
}

func TestForcedAlignmentBadInput(t *testing.T) {
	e := newEnv(t, store.SQLite)
	mp3 := e.speak("Hello there.")
	before := e.workspace().CharacterCount
	cases := []struct {
		name   string
		file   []byte
		fields map[string]any
		field  string
	}{
		{"no file", nil, map[string]any{"text": "Hello there."}, "file"},
		{"no text", mp3, map[string]any{}, "text"},
		{"empty text", mp3, map[string]any{"text": ""}, "text"},
		{"blank text", mp3, map[string]any{"text": " \n\t "}, "text"},
		{"text too long", mp3, map[string]any{"text": strings.Repeat("word ", 20_001)}, "text"},
		{"bad spooled flag", mp3, map[string]any{"text": "Hello there.", "enabled_spooled_file": "maybe"}, "enabled_spooled_file"},
		{"empty file", []byte{}, map[string]any{"text": "Hello there."}, "file"},
		{"not audio", []byte("this is a text file, not audio at all"), map[string]any{"text": "Hello there."}, "file"},
		{"truncated mp3", mp3[:200], map[string]any{"text": "Hello there."}, "file"},
		{"too short", audio.WAV(make([]int16, 800), 16000), map[string]any{"text": "Hello there."}, "file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.postForm("/v1/forced-alignment", "file", c.file, c.fields, "xi-api-key", e.key)
			loc := fieldError(t, r)
			if loc[len(loc)-1] != c.field {
				t.Fatalf("422 names %v, want %s: %s", loc, c.field, r.body)
			}
		})
	}
	expect(t, e.do("POST", "/v1/forced-alignment", e.key, map[string]any{"text": "Hello"}), 415)
	if e.workspace().CharacterCount != before {
		t.Fatal("bad input was charged")
	}

	// Over the quota: refused with quota_exceeded, nothing charged.
	rawExec(t, e.app.DB, `UPDATE workspaces SET character_count = 9999 WHERE id = ?`, e.user.WorkspaceID)
	r := e.postForm("/v1/forced-alignment", "file", mp3, map[string]any{"text": "Hello there."}, "xi-api-key", e.key)
	expect(t, r, 401)
	if detailStatus(t, r) != "quota_exceeded" || e.workspace().CharacterCount != 9999 {
		t.Fatalf("over quota: %s", r.body)
	}
}
