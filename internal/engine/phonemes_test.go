package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestPronunciationPhonemes: a pronunciation makes each engine speak the given phones, as its
// own phoneme reports show, for IPA and ARPAbet transcriptions; the words still cover the
// original text.
func TestPronunciationPhonemes(t *testing.T) {
	ipa, err := ParseIPA("təˈmɑːtoʊ")
	if err != nil {
		t.Fatal(err)
	}
	arpa, err := ParseARPAbet("t ah0 m aa1 t ow0")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ipa, arpa) {
		t.Fatalf("IPA read as %v, ARPAbet as %v", ipa, arpa)
	}
	es, err := NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	fl, err := NewFlite()
	if err != nil {
		t.Fatal(err)
	}
	text := "I like tomato soup."
	at := strings.Index(text, "tomato")
	cases := []struct {
		name     string
		eng      Synthesizer
		voice    string
		want     string // the stressed vowel's phone in the engine's set, with the rule
		without  string // … and without it
		joinWith string
	}{
		{"espeak", es, "en-us", "A:", "eI", " "},
		{"espeak-pool", sharedEspeakPool(t), "en-us", "A:", "eI", " "}, // through the worker protocol
		{"flite", fl, "slt", "aa", "ey", " "},
		{"flite-kal16", fl, "kal16", "aa", "ey", " "},
	}
	for _, c := range cases {
		for _, phones := range [][]string{ipa, arpa} {
			plain, err := c.eng.Synthesize(context.Background(), Request{Text: text, Voice: c.voice})
			if err != nil {
				t.Fatal(err)
			}
			ruled, err := c.eng.Synthesize(context.Background(), Request{Text: text, Voice: c.voice,
				Pronunciations: []Pronunciation{{Start: at, End: at + len("tomato"), Phones: phones}}})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(plain.Phonemes, c.without) || slices.Contains(plain.Phonemes, c.want) {
				t.Errorf("%s without the rule spoke %v", c.name, plain.Phonemes)
			}
			if !slices.Contains(ruled.Phonemes, c.want) || slices.Contains(ruled.Phonemes, c.without) {
				t.Errorf("%s with the rule spoke %v", c.name, ruled.Phonemes)
			}
			var words []string
			for _, w := range ruled.Words {
				words = append(words, text[w.Offset:w.Offset+w.Length])
			}
			if !slices.Equal(words, []string{"I", "like", "tomato", "soup"}) {
				t.Errorf("%s words %q", c.name, words)
			}
		}
	}
}
