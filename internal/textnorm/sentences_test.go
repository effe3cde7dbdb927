package textnorm

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func spanTexts(text string, spans []Span) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = text[s.Start:s.End]
	}
	return out
}

func TestSplitSentences(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"  \n\t ", nil},
		{"Hello world. How are you? I'm fine!", []string{"Hello world.", "How are you?", "I'm fine!"}},
		{"  Padded.   Text.  ", []string{"Padded.", "Text."}},
		{"Mr. Smith went to Washington. He arrived at 3.14 pm.", []string{"Mr. Smith went to Washington.", "He arrived at 3.14 pm."}},
		{"Dr. Who and Mrs. Hudson met St. John. Then vs. Real was on.", []string{"Dr. Who and Mrs. Hudson met St. John.", "Then vs. Real was on."}},
		{"E.g. this one, i.e. that one. Next.", []string{"E.g. this one, i.e. that one.", "Next."}},
		{"Apples, pears, etc. and more. Fine.", []string{"Apples, pears, etc. and more.", "Fine."}},
		{"I live in the U.S. It is big.", []string{"I live in the U.S.", "It is big."}},
		{"I live in the U.S. and it is big.", []string{"I live in the U.S. and it is big."}},
		{"J. K. Rowling wrote it. Yes.", []string{"J. K. Rowling wrote it.", "Yes."}},
		{"See No. 5 now. No. It is not.", []string{"See No. 5 now.", "No.", "It is not."}},
		{"It costs approx. five euros. Ok.", []string{"It costs approx. five euros.", "Ok."}},
		{`He said "Stop!" Then he left.`, []string{`He said "Stop!"`, "Then he left."}},
		{"(This is quoted.) And this?!", []string{"(This is quoted.)", "And this?!"}},
		{"Wait... what? Really… Yes.", []string{"Wait... what?", "Really…", "Yes."}},
		{"Version 2.0 is out. Done", []string{"Version 2.0 is out.", "Done"}},
		{"Hello.World is one token.", []string{"Hello.World is one token."}},
		{"你好。我很好！谢谢？好", []string{"你好。", "我很好！", "谢谢？", "好"}},
		{"First paragraph\n\nSecond paragraph", []string{"First paragraph", "Second paragraph"}},
		{"A hard-wrapped\nsentence goes on.", []string{"A hard-wrapped\nsentence goes on."}},
		{"Shopping:\n- milk\n- eggs\n1. first\n2) second", []string{"Shopping:", "- milk", "- eggs", "1. first", "2) second"}},
		{"Trailing newline\n", []string{"Trailing newline"}},
	}
	for _, c := range cases {
		spans := SplitSentences(c.text)
		got := spanTexts(c.text, spans)
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("SplitSentences(%q)\n got %q\nwant %q", c.text, got, c.want)
		}
		checkSpans(t, c.text, spans, MaxSentenceRunes)
	}
}

func TestSplitLongSentences(t *testing.T) {
	clause := "this clause keeps going for a while without stopping"
	long := strings.Repeat(clause+", ", 20) + "end."
	spans := SplitSentences(long)
	checkSpans(t, long, spans, MaxSentenceRunes)
	if len(spans) < 3 {
		t.Fatalf("%d pieces for %d chars", len(spans), len(long))
	}
	for _, s := range spans[:len(spans)-1] {
		if !strings.HasSuffix(long[s.Start:s.End], ",") {
			t.Errorf("piece not cut at a comma: %q", long[s.Start:s.End])
		}
	}
	// Without punctuation, at spaces.
	words := strings.Repeat("word ", 200)
	for _, s := range SplitSentences(words) {
		if p := words[s.Start:s.End]; strings.HasPrefix(p, "ord") || strings.HasSuffix(p, "wor") {
			t.Errorf("cut inside a word: %q", p)
		}
	}
	checkSpans(t, words, SplitSentences(words), MaxSentenceRunes)
	// Without spaces (CJK), anywhere, on character boundaries; CJK commas are preferred.
	cjk := strings.Repeat("这是一个很长的句子", 100)
	checkSpans(t, cjk, SplitSentences(cjk), MaxSentenceRunes)
	cjkComma := strings.Repeat("这是一个很长的句子，", 60)
	for _, s := range SplitSentences(cjkComma) {
		if !strings.HasSuffix(cjkComma[s.Start:s.End], "，") {
			t.Errorf("CJK piece not cut at a comma: %q", cjkComma[s.Start:s.End])
		}
	}
}

// checkSpans verifies the SplitSentences contract: ordered, non-overlapping, trimmed spans on
// character boundaries, no longer than maxRunes, with only white space outside them.
func checkSpans(t *testing.T, text string, spans []Span, maxRunes int) {
	t.Helper()
	boundary := map[int]bool{len(text): true}
	for i := range text {
		boundary[i] = true
	}
	prev := 0
	for _, s := range spans {
		if s.Start < prev || s.End <= s.Start || s.End > len(text) || !boundary[s.Start] || !boundary[s.End] {
			t.Fatalf("bad span %v after %d in %q", s, prev, text)
		}
		if strings.TrimFunc(text[prev:s.Start], unicode.IsSpace) != "" {
			t.Fatalf("non-space text %q outside spans of %q", text[prev:s.Start], text)
		}
		piece := text[s.Start:s.End]
		first, _ := utf8.DecodeRuneInString(piece)
		last, _ := utf8.DecodeLastRuneInString(piece)
		if unicode.IsSpace(first) || unicode.IsSpace(last) {
			t.Fatalf("span %q is not trimmed", piece)
		}
		if n := utf8.RuneCountInString(piece); n > maxRunes {
			t.Fatalf("span of %d runes > %d", n, maxRunes)
		}
		prev = s.End
	}
	if strings.TrimFunc(text[prev:], unicode.IsSpace) != "" {
		t.Fatalf("non-space text %q after the last span of %q", text[prev:], text)
	}
}

func FuzzSplitSentences(f *testing.F) {
	for _, s := range []string{
		"", "Hello. World!", "Mr. X. Y.", "3.14. e.g. U.S. A.", "a\n\nb\n- c", "。。！？", "...!?…",
		strings.Repeat("ab, ", 200), strings.Repeat("x", 700), "\xff\xfe. \xc3", "No. 5. No.", "\"Hi.\" 'Yes.'",
		strings.Repeat("这是一个很长的句子", 80) + "。", " \u00a0. \u2028 .",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkSpans(t, text, SplitSentences(text), MaxSentenceRunes)
		checkSpans(t, text, splitSentences(text, 7), 7)
	})
}
