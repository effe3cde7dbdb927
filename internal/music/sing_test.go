package music

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/voiceprint"
)

func TestSyllables(t *testing.T) {
	for w, n := range map[string]int{"la": 1, "love": 1, "hello": 2, "tomorrow": 3, "little": 2, "sky": 1, "beautiful": 3} {
		if got := syllables(w); got != n {
			t.Errorf("%s: %d syllables, want %d", w, got, n)
		}
	}
}

// TestSingLyrics: lines are sung by flite on the melody's notes (one per syllable, the word
// stretched to its notes): the song keeps its exact length, repeats by seed, and differs from
// the instrumental.
func TestSingLyrics(t *testing.T) {
	fl, err := engine.NewFlite()
	if err != nil {
		t.Skip("flite:", err)
	}
	singer := &Singer{Synth: fl, Voice: "kal16"}
	p := PlanFromPrompt("pop ballad, 100 bpm", 10000)
	for i := range p.Sections {
		p.Sections[i].Lines = []string{"Hold on to the feeling", "let it rise and come alive"}
	}
	sing := func() []int16 {
		sc := Compose(Derive(p), 4)
		sc.Singer = singer
		if len(sc.sung) < 8 {
			t.Fatalf("%d words placed on the melody", len(sc.sung))
		}
		var out []int16
		if err := Render(context.Background(), sc, func(s []int16) error { out = append(out, s...); return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a := sing()
	if len(a) != msToSamples(10000) {
		t.Fatalf("%d samples", len(a))
	}
	if b := sing(); !slices.Equal(a, b) {
		t.Fatal("the same seed sang differently")
	}
	inst := *p
	inst.Sections = slices.Clone(p.Sections)
	for i := range inst.Sections {
		inst.Sections[i].Lines = nil
	}
	if slices.Equal(a, render(t, &inst, 4)) {
		t.Fatal("the sung song is the instrumental")
	}
}

// TestSungPitch: a sung word holds its note: the median F0 of "feeling" sung on A3 and on E3 is
// within a semitone of the note, and it lasts exactly its notes (1.5 s: the analysis needs a
// second of voice).
func TestSungPitch(t *testing.T) {
	fl, err := engine.NewFlite()
	if err != nil {
		t.Skip("flite:", err)
	}
	s := &Singer{Synth: fl, Voice: "kal16"}
	for _, key := range []int{57, 52} {
		pcm, err := s.sing(context.Background(), sungWord{text: "feeling", at: 0, end: SampleRate * 3 / 2, key: key})
		if err != nil {
			t.Fatal(err)
		}
		if len(pcm.Samples) != SampleRate*3/2 {
			t.Fatalf("%d samples", len(pcm.Samples))
		}
		p, err := voiceprint.Analyse(pcm)
		if err != nil {
			t.Fatal(err)
		}
		if semis := 12 * math.Log2(p.F0Median/midiHz(key)); math.Abs(semis) > 1 {
			t.Errorf("key %d (%.0f Hz): sung at %.0f Hz, %.1f semitones off", key, midiHz(key), p.F0Median, semis)
		}
	}
}

// TestLyricsRefusedWithoutSinger: without a singing voice, lines and lyrics_text are a 422 naming
// the field and saying why.
func TestLyricsRefusedWithoutSinger(t *testing.T) {
	s := &Service{Engine: Offline{}}
	p := PlanFromPrompt("pop", 6000)
	p.Sections[0].Lines = []string{"", "la la"}
	_, err := s.Plan(&Request{Plan: p})
	var v *errs.Validation
	if !errors.As(err, &v) || !slices.Equal(v.Fields[0].Loc, []any{"body", "composition_plan", "sections", 0, "lines", 1}) || !strings.Contains(v.Fields[0].Msg, "cannot sing") {
		t.Fatalf("lines: %v", err)
	}
	if _, err := s.Plan(&Request{Prompt: "pop", LyricsText: "hello"}); !errors.As(err, &v) || v.Fields[0].Loc[1] != "lyrics_text" {
		t.Fatalf("lyrics_text: %v", err)
	}
	if _, err := s.Plan(&Request{Prompt: "pop", LyricsText: "hello", ForceInstrumental: true}); err != nil {
		t.Fatalf("force_instrumental: %v", err)
	}
	sung, err := (&Service{Engine: Offline{Singer: &Singer{}}}).Plan(&Request{Prompt: "pop", LengthMs: 30000, LyricsText: "[Verse]\none\ntwo\nthree"})
	if err != nil || !sung.HasLyrics() || len(sung.Sections[0].Lines) != 0 {
		t.Fatalf("lyrics_text spread: %+v %v", sung, err)
	}
}
