// Package textnorm prepares text for speech synthesis: it splits text into sentences for
// incremental synthesis, expands numbers, dates, currencies, units and abbreviations into words
// (keeping a byte mapping back to the input), and builds per-character timing alignments.
package textnorm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is the half-open byte range [Start, End) of a text.
type Span struct{ Start, End int }

// MaxSentenceRunes is the longest sentence SplitSentences returns. Longer sentences are cut at
// clause punctuation or spaces so the first audio of a long run-on sentence is not delayed by
// synthesizing all of it.
const MaxSentenceRunes = 300

// SplitSentences splits text into sentences and returns their byte ranges in order. Spans never
// overlap, start and end on non-space characters, and together contain every non-space character
// of text; only whitespace lies between them.
//
// Sentences end at . ! ? … (and the CJK 。！？) followed by a space or the end of the text, with
// any closing quotes and brackets kept in the sentence; at blank lines; and before lines that
// start with a list marker. A period does not end a sentence after common abbreviations (Mr.,
// Dr., e.g., vs., No. 5, …), single-letter initials, inside numbers (3.14), or when the next word
// starts with a lower-case letter.
func SplitSentences(text string) []Span {
	return splitSentences(text, MaxSentenceRunes)
}

func splitSentences(text string, maxRunes int) []Span {
	var spans []Span
	add := func(start, end int) {
		if start, end = trimSpace(text, start, end); start < end {
			spans = appendLimited(spans, text, Span{start, end}, maxRunes)
		}
	}
	start := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n' && lineBreakEndsSentence(text, i):
			add(start, i)
			start = i
		case isTerminator(r):
			j := skipTerminators(text, i)
			if sentenceEnds(text, i, j) {
				add(start, j)
				start = j
			}
			i = j
			continue
		}
		i += size
	}
	add(start, len(text))
	return spans
}

func isTerminator(r rune) bool {
	switch r {
	case '.', '!', '?', '…', '。', '！', '？', '｡':
		return true
	}
	return false
}

func isCJKTerminator(r rune) bool { return r == '。' || r == '！' || r == '？' || r == '｡' }

func isCloser(r rune) bool {
	switch r {
	case '"', '\'', '”', '’', ')', ']', '}', '»', '」', '』', '）':
		return true
	}
	return false
}

// skipTerminators returns the end of the run of terminators starting at i, including closing
// quotes and brackets after it ("Stop!" he said → the run is `!"`).
func skipTerminators(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isTerminator(r) && !isCloser(r) {
			break
		}
		i += size
	}
	return i
}

// Abbreviations that are (almost) never the last word of a sentence.
var titleAbbr = set("mr", "mrs", "ms", "dr", "prof", "st", "mt", "gen", "col", "capt", "lt", "sgt", "rev", "hon",
	"fig", "figs", "approx", "vs", "e.g", "i.e", "cf", "ca", "dept", "est", "sen", "rep", "gov", "pres")

// Abbreviations that stand before a number (No. 5, p. 12).
var numberAbbr = set("no", "nos", "vol", "p", "pp", "ch", "art", "nr", "op")

// Abbreviations that often do end a sentence; they end one when the next word is capitalised.
var ambiguousAbbr = set("etc", "inc", "ltd", "co", "corp", "jr", "sr", "u.s", "u.k", "a.m", "p.m", "jan", "feb",
	"mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec")

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// sentenceEnds decides whether the terminator run text[i:j] ends a sentence.
func sentenceEnds(text string, i, j int) bool {
	run := text[i:j]
	for _, r := range run {
		if isCJKTerminator(r) {
			return true // CJK text has no spaces after sentences
		}
	}
	if j == len(text) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(text[j:])
	if !unicode.IsSpace(next) {
		return false // 3.14, e.g.x, U.S.A, "?!"…
	}
	if run[0] != '.' && !strings.HasPrefix(run, "…") {
		return true // ! and ? always end a sentence
	}
	nextWord := firstRuneAfterSpace(text, j)
	if unicode.IsLower(nextWord) {
		return false // "approx. five", "Well... maybe": a sentence does not start lower-case
	}
	if strings.HasPrefix(run, "..") || strings.HasPrefix(run, "…") {
		return true
	}
	word := wordBefore(text, i)
	lower := strings.ToLower(word)
	switch {
	case word == "":
		return true
	case titleAbbr[lower]:
		return false
	case numberAbbr[lower]:
		return !unicode.IsDigit(nextWord)
	case utf8.RuneCountInString(word) == 1 && unicode.IsUpper([]rune(word)[0]):
		return false // an initial: J. K. Rowling
	case ambiguousAbbr[lower] || strings.Contains(word, "."):
		return unicode.IsUpper(nextWord)
	}
	return true
}

// wordBefore returns the letters and inner dots just before byte i ("e.g" for "e.g." at i).
func wordBefore(text string, i int) string {
	j := i
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:j])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		j -= size
	}
	return strings.Trim(text[j:i], ".")
}

// firstRuneAfterSpace returns the first non-space rune at or after byte i, or 0.
func firstRuneAfterSpace(text string, i int) rune {
	for _, r := range text[i:] {
		if !unicode.IsSpace(r) {
			return r
		}
	}
	return 0
}

// lineBreakEndsSentence reports whether the newline at byte i ends a sentence: when it starts a
// blank line (paragraph break) or the next line starts with a list marker. Other single newlines
// are treated as spaces, since text is often hard-wrapped mid-sentence.
func lineBreakEndsSentence(text string, i int) bool {
	j := i + 1
	for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r') {
		j++
	}
	if j == len(text) || text[j] == '\n' {
		return true
	}
	rest := text[j:]
	for _, m := range []string{"- ", "* ", "• ", "– ", "— "} {
		if strings.HasPrefix(rest, m) {
			return true
		}
	}
	// "1. " or "2) "
	k := 0
	for k < len(rest) && k < 3 && rest[k] >= '0' && rest[k] <= '9' {
		k++
	}
	return k > 0 && k+1 < len(rest) && (rest[k] == '.' || rest[k] == ')') && rest[k+1] == ' '
}

// trimSpace shrinks [start, end) to exclude leading and trailing white space.
func trimSpace(text string, start, end int) (int, int) {
	for start < end {
		r, size := utf8.DecodeRuneInString(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		start += size
	}
	for end > start {
		r, size := utf8.DecodeLastRuneInString(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= size
	}
	return start, end
}

// appendLimited appends s, cut into pieces of at most maxRunes runes.
func appendLimited(spans []Span, text string, s Span, maxRunes int) []Span {
	for longerThan(text[s.Start:s.End], maxRunes) {
		cut := cutPoint(text, s, maxRunes)
		a, b := trimSpace(text, s.Start, cut)
		if a < b {
			spans = append(spans, Span{a, b})
		}
		s.Start, s.End = trimSpace(text, cut, s.End)
	}
	if s.Start < s.End {
		spans = append(spans, s)
	}
	return spans
}

// longerThan reports whether s has more than n runes, looking at no more than n+1 of them (a
// full count on every cut would make splitting one huge sentence quadratic).
func longerThan(s string, n int) bool {
	if len(s) <= n {
		return false
	}
	count := 0
	for range s {
		if count++; count > n {
			return true
		}
	}
	return false
}

// cutPoint picks where to cut a too-long span within its first maxRunes runes: after the last
// clause punctuation (, ; : – and CJK equivalents), else at the last space, else after maxRunes
// runes. Cuts closer to the start than a third of maxRunes are avoided so pieces are not tiny.
func cutPoint(text string, s Span, maxRunes int) int {
	punct, space, hard := -1, -1, s.End
	n := 0
	for i := s.Start; i < s.End; {
		if n == maxRunes {
			hard = i
			break
		}
		r, size := utf8.DecodeRuneInString(text[i:s.End])
		n++
		after := i + size
		if n > maxRunes/3 {
			switch {
			case r == '，' || r == '、' || r == '；' || r == '：':
				punct = after
			case strings.ContainsRune(",;:–—", r):
				if next, _ := utf8.DecodeRuneInString(text[after:s.End]); after == s.End || unicode.IsSpace(next) {
					punct = after
				}
			case unicode.IsSpace(r):
				space = i
			}
		}
		i = after
	}
	switch {
	case punct > s.Start:
		return punct
	case space > s.Start:
		return space
	}
	return hard
}
