package pronunciation

import (
	"slices"
	"strings"
	"testing"

	"timbre/internal/errs"
)

func alias(s, a string, cs, wb bool) Rule {
	return Rule{Type: "alias", StringToReplace: s, Alias: &a, CaseSensitive: &cs, WordBoundaries: &wb}
}

// TestApply: first match wins in rule order; case and word boundaries are honoured; the mapping
// leads every byte of the result back to the original text in order.
func TestApply(t *testing.T) {
	a := &Applier{}
	a.add([]Rule{alias("UN", "United Nations", true, true), alias("un", "OOPS", false, true), alias("cat", "dog", true, false)})
	ph := "t ah0 m aa1 t ow0"
	alpha := AlphabetARPAbet
	a.add([]Rule{{Type: "phoneme", StringToReplace: "tomato", Phoneme: &ph, Alphabet: &alpha}})
	text := "The UN and un-done bunny; concatenate, tomato, Tomato."
	got := a.Apply(text)
	want := "The United Nations and OOPS-done bunny; condogenate, tomato, Tomato."
	if got.Text != want {
		t.Fatalf("applied %q, want %q", got.Text, want)
	}
	if len(got.Mapping) != len(got.Text) || !slices.IsSorted(got.Mapping) {
		t.Fatalf("mapping %v", got.Mapping)
	}
	if i := strings.Index(got.Text, "Nations"); text[got.Mapping[i]:got.Mapping[i]+1] != "U" && text[got.Mapping[i]:got.Mapping[i]+1] != "N" {
		t.Errorf("Nations maps to %q", text[got.Mapping[i]:])
	}
	if len(got.Phonemes) != 1 || got.Text[got.Phonemes[0].Start:got.Phonemes[0].End] != "tomato" {
		t.Errorf("phoneme spans %v", got.Phonemes)
	}
	// Composing with an identity normalisation keeps the spans and maps to the original.
	m, prons := got.Compose(identity(len(got.Text)), len(text))
	if !slices.Equal(m, got.Mapping) || len(prons) != 1 {
		t.Errorf("compose: %v %v", m, prons)
	}
	if (*Applier)(nil).Apply("x").Text != "x" {
		t.Error("a nil applier changed the text")
	}
}

// TestParsePLS: graphemes, aliases, phonemes with the lexicon's or their own alphabet.
func TestParsePLS(t *testing.T) {
	rules, err := ParsePLS([]byte(`<?xml version="1.0"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa">
 <lexeme><grapheme>W3C</grapheme><grapheme>w3c</grapheme><alias>World Wide Web Consortium</alias></lexeme>
 <lexeme><grapheme>read</grapheme><phoneme alphabet="x-cmu">R IY1 D</phoneme></lexeme>
 <lexeme><grapheme>Newton</grapheme><phoneme>ˈnjuːtən</phoneme></lexeme>
</lexicon>`))
	if err != nil {
		t.Fatal(err)
	}
	var v errs.Validator
	rules = normalizeRules(&v, "rules", rules)
	if err := v.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rules) != 4 || *rules[1].Alias != "World Wide Web Consortium" || *rules[2].Alphabet != AlphabetARPAbet || *rules[3].Alphabet != AlphabetIPA {
		t.Fatalf("rules %+v", rules)
	}
	back, err := ParsePLS(RenderPLS(rules, "en-US"))
	if err != nil || len(back) != 4 {
		t.Fatalf("round trip: %v %v", back, err)
	}
	for _, bad := range []string{
		`<!DOCTYPE x><lexicon/>`,
		`<lexicon><lexeme><grapheme>a</grapheme></lexeme>`,
		`<speak>hi</speak>`,
	} {
		if _, err := ParsePLS([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}
