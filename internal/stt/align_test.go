package stt

import (
	"math"
	"slices"
	"strings"
	"testing"

	"timbre/internal/engine"
)

func TestSpokenWords(t *testing.T) {
	cases := map[string][]string{
		"Hello,":     {"hello"},
		"3":          {"three"},
		"$5":         {"five", "dollars"},
		"don't":      {"don't"},
		"'quoted'":   {"quoted"},
		"—":          nil,
		"well-known": {"well", "known"},
	}
	for in, want := range cases {
		if got := spokenWords(in); !slices.Equal(got, want) {
			t.Errorf("spokenWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitUserWords(t *testing.T) {
	text := "  Hi, there —\tyou!\n"
	var got []string
	for _, w := range splitUserWords(text) {
		got = append(got, text[w.Offset:w.Offset+w.Length])
	}
	if want := []string{"Hi,", "there", "—", "you!"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestBuildAlignment: user words span their spoken words, characters cover the text, and the
// overall loss is the mean over the words' characters.
func TestBuildAlignment(t *testing.T) {
	text := "Buy 3 eggs."
	uws := splitUserWords(text)
	spans := [][2]int{{0, 1}, {1, 2}, {2, 3}}
	aligned := []engine.AlignedWord{
		{Text: "buy", Start: 0.1, End: 0.4, Loss: 1, Heard: true},
		{Text: "three", Start: 0.5, End: 0.9, Loss: 2, Heard: true},
		{Text: "eggs", Start: 1.0, End: 1.5, Loss: 4, Heard: true},
	}
	a := buildAlignment(text, uws, spans, aligned, 2)
	if len(a.Words) != 3 || a.Words[1].Text != "3" || a.Words[1].Start != 0.5 || a.Words[2].Text != "eggs." || a.Words[2].End != 1.5 {
		t.Fatalf("words %+v", a.Words)
	}
	var b strings.Builder
	for _, c := range a.Characters {
		b.WriteString(c.Text)
	}
	if b.String() != text || len(a.Characters) != len(text) {
		t.Fatalf("characters spell %q", b.String())
	}
	// The space between "Buy" and "3" spans the gap between the words.
	if sp := a.Characters[3]; sp.Text != " " || sp.Start != 0.4 || sp.End != 0.5 {
		t.Fatalf("space: %+v", sp)
	}
	if last := a.Characters[len(a.Characters)-1]; last.End != 1.5 {
		t.Fatalf("last character %+v", last)
	}
	want := (3*1.0 + 1*2.0 + 5*4.0) / 9
	if math.Abs(a.Loss-want) > 1e-9 {
		t.Fatalf("loss %v, want %v", a.Loss, want)
	}
}
