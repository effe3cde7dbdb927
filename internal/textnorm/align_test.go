package textnorm

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// checkAlignment verifies the invariants every alignment must satisfy.
func checkAlignment(t *testing.T, text string, chars []string, starts, ends []float64, total float64) {
	t.Helper()
	n := utf8.RuneCountInString(text)
	if len(chars) != n || len(starts) != n || len(ends) != n {
		t.Fatalf("%q: %d chars, %d starts, %d ends, want %d", text, len(chars), len(starts), len(ends), n)
	}
	if strings.Join(chars, "") != text {
		t.Fatalf("chars %q do not spell %q", chars, text)
	}
	if !(total > 0) || math.IsInf(total, 0) {
		total = math.MaxFloat64 // only ordering is checked
	}
	prevEnd := 0.0
	for k := range n {
		s, e := starts[k], ends[k]
		if math.IsNaN(s) || math.IsNaN(e) || s < prevEnd || e < s || s < 0 || e > total {
			t.Fatalf("%q: char %d %q has [%v, %v] after end %v (total %v)", text, k, chars[k], s, e, prevEnd, total)
		}
		prevEnd = e
	}
}

const eps = 1e-9

func near(a, b float64) bool { return math.Abs(a-b) < eps }

func TestCharAlignment(t *testing.T) {
	text := "Hello world"
	words := []Word{{0, 5, 0.1, 0.6}, {6, 5, 0.7, 1.2}}
	chars, starts, ends := CharAlignment(text, words, 1.5)
	checkAlignment(t, text, chars, starts, ends, 1.5)
	want := []struct {
		k          int
		start, end float64
	}{
		{0, 0.1, 0.2},  // H: first fifth of the word
		{4, 0.5, 0.6},  // o
		{5, 0.6, 0.7},  // the space fills the gap between the words
		{6, 0.7, 0.8},  // w
		{10, 1.1, 1.2}, // d
	}
	for _, w := range want {
		if !near(starts[w.k], w.start) || !near(ends[w.k], w.end) {
			t.Errorf("char %d %q = [%v, %v], want [%v, %v]", w.k, chars[w.k], starts[w.k], ends[w.k], w.start, w.end)
		}
	}

	// Leading and trailing characters take the silence before the first and after the last word.
	chars, starts, ends = CharAlignment(" Hi!", []Word{{1, 2, 0.2, 0.4}}, 1)
	checkAlignment(t, " Hi!", chars, starts, ends, 1)
	if !near(starts[0], 0) || !near(ends[0], 0.2) || !near(starts[3], 0.4) || !near(ends[3], 1) {
		t.Errorf("edges: %v %v", starts, ends)
	}

	// Multi-byte characters are one entry each; offsets are bytes.
	text = "héllo 世界"
	chars, starts, ends = CharAlignment(text, []Word{{0, len("héllo"), 0, 0.5}, {len("héllo "), len("世界"), 0.5, 0.9}}, 1)
	checkAlignment(t, text, chars, starts, ends, 1)
	if chars[1] != "é" || chars[6] != "世" || !near(starts[6], 0.5) || !near(ends[7], 0.9) {
		t.Errorf("multi-byte: %q %v %v", chars, starts, ends)
	}
	if !near(starts[5], 0.5) || !near(ends[5], 0.5) {
		t.Errorf("space between touching words should be zero-length at 0.5: [%v, %v]", starts[5], ends[5])
	}

	// No words: the text is spread over the whole duration.
	chars, starts, ends = CharAlignment("abcd", nil, 2)
	checkAlignment(t, "abcd", chars, starts, ends, 2)
	if !near(starts[2], 1) || !near(ends[3], 2) {
		t.Errorf("no words: %v %v", starts, ends)
	}

	// Empty text.
	if chars, starts, ends := CharAlignment("", words, 1); len(chars)+len(starts)+len(ends) != 0 {
		t.Error("empty text produced entries")
	}
}

func TestCharAlignmentBadInput(t *testing.T) {
	text := "one two three four"
	cases := map[string][]Word{
		"unsorted":      {{8, 5, 0.6, 0.9}, {0, 3, 0.0, 0.3}, {4, 3, 0.3, 0.6}},
		"overlapping":   {{0, 7, 0, 0.5}, {4, 3, 0.4, 0.6}},
		"out of range":  {{-3, 2, 0, 1}, {100, 3, 0, 1}, {14, 100, 0.5, 0.8}},
		"bad times":     {{0, 3, -1, 0.2}, {4, 3, 0.5, 0.1}, {8, 5, math.NaN(), math.Inf(1)}, {14, 4, 0.2, 0.1}},
		"past total":    {{0, 3, 5, 6}, {4, 3, 7, 8}},
		"zero length":   {{0, 0, 0.1, 0.2}, {4, -1, 0.2, 0.3}},
		"mid-character": {{1, 1, 0.1, 0.2}},
		"huge length":   {{2, math.MaxInt, 0.1, 0.2}, {0, 1, 0, 0.1}},
	}
	for name, words := range cases {
		for _, total := range []float64{1, 0, -1, math.NaN(), math.Inf(1)} {
			chars, starts, ends := CharAlignment(text, words, total)
			checkAlignment(t, text, chars, starts, ends, total)
			if name == "past total" && total == 1 && ends[len(ends)-1] > 1 {
				t.Errorf("%s: times beyond total", name)
			}
		}
	}
}

func TestMapAlignment(t *testing.T) {
	orig := "Dr. Smith paid $5 on 2024-03-05."
	norm, mapping := Normalize(orig, "en")
	words := wordsOf(norm)
	total := 0.1 * float64(len(words)+1)
	_, ns, ne := CharAlignment(norm, words, total)
	chars, starts, ends := MapAlignment(orig, norm, mapping, ns, ne)
	checkAlignment(t, orig, chars, starts, ends, total)

	// Every original character that produced speech has time; '$' and '5' share "five dollars".
	for k, c := range chars {
		if c != " " && c != "." && c != "-" && ends[k] <= starts[k] {
			t.Errorf("char %d %q has no duration", k, c)
		}
	}
	dollar := strings.Index(orig, "$")
	five := utf8.RuneCountInString(orig[:dollar]) + 1
	fiveStart := ns[utf8.RuneCountInString(norm[:strings.Index(norm, "five")])]
	dollarsEnd := ne[utf8.RuneCountInString(norm[:strings.Index(norm, "dollars")+len("dollars")])-1]
	if !near(starts[five-1], fiveStart) || !near(ends[five], dollarsEnd) {
		t.Errorf("$5 spans [%v, %v], want [%v, %v]", starts[five-1], ends[five], fiveStart, dollarsEnd)
	}

	// An identity mapping gives back the same alignment.
	text := "plain text here"
	_, s1, e1 := CharAlignment(text, wordsOf(text), 1)
	same, _ := Normalize(text, "en")
	_, m := Normalize(text, "en")
	_, s2, e2 := MapAlignment(text, same, m, s1, e1)
	if !slices.Equal(s1, s2) || !slices.Equal(e1, e2) {
		t.Errorf("identity mapping changed the alignment")
	}

	// Characters that vanish get a zero-length slot at the previous character's end.
	vanish := "ab--cd"
	normV := "abcd"
	mapV := []int{0, 1, 4, 5}
	_, nsV, neV := CharAlignment(normV, []Word{{0, 4, 0, 0.4}}, 0.4)
	_, sV, eV := MapAlignment(vanish, normV, mapV, nsV, neV)
	if !near(sV[2], 0.2) || !near(eV[2], 0.2) || !near(sV[3], 0.2) || !near(eV[3], 0.2) || !near(sV[4], 0.2) {
		t.Errorf("vanished chars: %v %v", sV, eV)
	}
	// Leading vanished characters sit at the first timed character's start.
	_, sL, eL := MapAlignment("--ab", "ab", []int{2, 3}, []float64{0.3, 0.4}, []float64{0.4, 0.5})
	if !near(sL[0], 0.3) || !near(eL[1], 0.3) || !near(eL[3], 0.5) {
		t.Errorf("leading vanished chars: %v %v", sL, eL)
	}
}

// wordsOf times every space-separated word of text at 0.1 s per word, back to back.
func wordsOf(text string) []Word {
	var words []Word
	i := 0
	for _, f := range strings.FieldsFunc(text, unicode.IsSpace) {
		off := strings.Index(text[i:], f) + i
		t := 0.1 * float64(len(words))
		words = append(words, Word{off, len(f), t, t + 0.1})
		i = off + len(f)
	}
	return words
}

func TestMillis(t *testing.T) {
	s, d := Millis([]float64{0, 0.0004, 0.1235, 0.2}, []float64{0.0004, 0.1235, 0.2, 0.19})
	if !slices.Equal(s, []int{0, 0, 124, 200}) || !slices.Equal(d, []int{0, 124, 76, 0}) {
		t.Errorf("Millis = %v %v", s, d)
	}
}

func FuzzCharAlignment(f *testing.F) {
	f.Add("Hello world", 0, 5, 0.1, 0.5, 6, 5, 0.6, 1.0, 1.2)
	f.Add("héllo 世界!", 0, 6, 0.0, 0.5, 7, 6, 0.5, 0.9, 1.0)
	f.Add("abc", 2, 10, 0.5, 0.1, -1, 2, 3.0, 2.0, 0.0)
	f.Add("", 0, 1, 0.0, 1.0, 0, 1, 0.0, 1.0, 1.0)
	f.Add("x y z", 4, 1, 0.9, 0.95, 0, 1, 0.0, 0.1, math.Inf(1))
	f.Add("\xff\xfe a", 1, 1, math.NaN(), 0.5, 3, 1, 0.5, math.NaN(), 2.0)
	f.Add("big", 1, math.MaxInt, 0.1, 0.2, math.MinInt, 5, 0.0, 1.0, 1.0)
	f.Fuzz(func(t *testing.T, text string, o1, l1 int, s1, e1 float64, o2, l2 int, s2, e2, total float64) {
		words := []Word{{o1, l1, s1, e1}, {o2, l2, s2, e2}}
		chars, starts, ends := CharAlignment(text, words, total)
		checkAlignment(t, text, chars, starts, ends, total)

		// Round trip through normalization.
		norm, mapping := Normalize(text, "en")
		_, ns, ne := CharAlignment(norm, wordsOf(norm), 10)
		chars, starts, ends = MapAlignment(text, norm, mapping, ns, ne)
		checkAlignment(t, text, chars, starts, ends, 10)
	})
}
