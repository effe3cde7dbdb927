package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the engine-independent helpers the synthesizers share: prosody defaults, word
// spans in text, and simple signal measurements used to place word boundaries.

// normalized fills in defaults: the zero Prosody means "the voice as it is" (rate 1, pitch and
// range 50), and a non-positive rate means rate 1.
func (p Prosody) normalized() Prosody {
	if p == (Prosody{}) {
		return Prosody{Rate: 1, Pitch: 50, PitchRange: 50}
	}
	if p.Rate <= 0 {
		p.Rate = 1
	}
	p.Pitch = clampInt(p.Pitch, 0, 100)
	p.PitchRange = clampInt(p.PitchRange, 0, 100)
	return p
}

func clampInt(v, lo, hi int) int {
	return min(max(v, lo), hi)
}

// span is a byte range [Start, End) of a text.
type span struct{ Start, End int }

// splitWords returns the words of text as byte spans: runs of characters other than spaces and
// dashes, with leading and trailing punctuation and symbols removed ("“Hello,”" → "Hello").
// Runs made only of punctuation are not words.
func splitWords(text string) []span {
	var words []span
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if isWordBreak(r) {
			i += n
			continue
		}
		start := i
		for i < len(text) {
			r, n := utf8.DecodeRuneInString(text[i:])
			if isWordBreak(r) {
				break
			}
			i += n
		}
		if s, ok := trimPunct(text, span{start, i}); ok {
			words = append(words, s)
		}
	}
	return words
}

// trimPunct narrows s to exclude leading and trailing punctuation/symbols; ok is false when
// nothing is left.
func trimPunct(text string, s span) (span, bool) {
	for s.Start < s.End {
		r, n := utf8.DecodeRuneInString(text[s.Start:s.End])
		if !isPunct(r) {
			break
		}
		s.Start += n
	}
	for s.End > s.Start {
		r, n := utf8.DecodeLastRuneInString(text[s.Start:s.End])
		if !isPunct(r) {
			break
		}
		s.End -= n
	}
	return s, s.End > s.Start
}

// isWordBreak reports whether r separates words: spaces, and the dashes written between words
// without spaces ("cat—really").
func isWordBreak(r rune) bool { return unicode.IsSpace(r) || r == '—' || r == '–' }

func isPunct(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }

func isSpaceOrPunct(r rune) bool { return unicode.IsSpace(r) || isPunct(r) }

// runeByteOffsets maps character (code point) indexes of text to byte offsets: the result has
// one entry per rune plus a final entry equal to len(text).
func runeByteOffsets(text string) []int {
	offs := make([]int, 0, len(text)+1)
	for i := range text {
		offs = append(offs, i)
	}
	return append(offs, len(text))
}

// pauseAfter is the relative length of the pause a reader makes after the word ending at byte
// end: sentence ends pause longer than commas. It looks at the punctuation that follows the word.
func pauseAfter(text string, end int) float64 {
	rest := strings.TrimLeftFunc(text[end:], func(r rune) bool {
		return r == '"' || r == '\'' || r == ')' || r == '”' || r == '’' || r == '»'
	})
	r, _ := utf8.DecodeRuneInString(rest)
	switch r {
	case '.', '!', '?', '…', '。', '！', '？':
		return 4
	case ',', ';', ':', '，', '；', '：', '—', '–':
		return 2
	}
	return 0
}

// silenceThreshold is the amplitude (of 32767) below which audio counts as silence when trimming:
// about -50 dBFS, above the noise floor of the vocoders and well below speech.
const silenceThreshold = 100

// speechBounds returns the first and last sample index (end exclusive) of pcm that rise above
// silenceThreshold, or (0, 0) for silence.
func speechBounds(samples []int16) (int, int) {
	first, last := -1, -1
	for i, s := range samples {
		if abs16(s) > silenceThreshold {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return 0, 0
	}
	return first, last + 1
}

// trimSilence narrows a word's time to its audible part, in 5 ms steps: engines report where a
// word starts, and its end is usually the start of the next word, which includes the pause
// between them. A word that is silent throughout keeps its times.
func trimSilence(pcm PCM, start, end float64) (float64, float64) {
	step := pcm.SampleRate / 200
	lo := max(int(start*float64(pcm.SampleRate)), 0)
	hi := min(int(end*float64(pcm.SampleRate)), len(pcm.Samples))
	if step == 0 || hi <= lo {
		return start, end
	}
	loud := func(from, to int) bool {
		for _, s := range pcm.Samples[max(from, lo):min(to, hi)] {
			if abs16(s) > silenceThreshold {
				return true
			}
		}
		return false
	}
	for hi > lo && !loud(hi-step, hi) {
		hi -= step
	}
	for lo < hi && !loud(lo, lo+step) {
		lo += step
	}
	if hi <= lo {
		return start, end
	}
	rate := float64(pcm.SampleRate)
	return max(start, float64(lo)/rate), min(end, float64(hi)/rate)
}

func abs16(s int16) int {
	if s < 0 {
		return -int(s)
	}
	return int(s)
}

// wordTime is an engine's word: the text it came from (byte span, possibly only part of a word
// or including punctuation) and its time in the audio.
type wordTime struct {
	span       span
	start, end float64
}

// wordMarksFromSpans snaps engine words to the words of the text (splitWords) and merges engine
// words that fall in the same text word: engines expand "1990" into "nineteen ninety" and report
// both parts. Engine words that overlap no text word (stray punctuation) are dropped. Text words
// the engine reported nothing for (espeak reads "n'est-ce pas" as one word) share the time of
// the reported word before them, in proportion to their length, so every word gets a mark. The
// times are tightened to the audible part of each word.
func wordMarksFromSpans(text string, times []wordTime, pcm PCM) []WordMark {
	words := splitWords(text)
	type slot struct {
		start, end float64
		ok         bool
	}
	slots := make([]slot, len(words))
	w := 0 // words before w are behind us: engines report words in text order
	for _, t := range times {
		for w < len(words) && words[w].End <= t.span.Start {
			w++
		}
		if w == len(words) || words[w].Start >= max(t.span.End, t.span.Start+1) {
			continue // no overlap with a text word
		}
		if slots[w].ok {
			slots[w].end = max(slots[w].end, t.end)
		} else {
			slots[w] = slot{t.start, t.end, true}
		}
	}
	var marked []int
	for i, s := range slots {
		if s.ok {
			marked = append(marked, i)
		}
	}
	if len(marked) == 0 {
		return estimateWordMarks(text, pcm)
	}
	out := make([]WordMark, 0, len(words))
	for k, m := range marked {
		// Group the marked word with the unmarked ones after it (and, for the first, before it).
		from, to := m, len(words)
		if k == 0 {
			from = 0
		}
		if k+1 < len(marked) {
			to = marked[k+1]
		}
		start, end := trimSilence(pcm, slots[m].start, slots[m].end)
		var total float64
		for _, w := range words[from:to] {
			total += float64(utf8.RuneCountInString(text[w.Start:w.End]))
		}
		t := start
		for _, w := range words[from:to] {
			d := (end - start) * float64(utf8.RuneCountInString(text[w.Start:w.End])) / total
			out = append(out, WordMark{Offset: w.Start, Length: w.End - w.Start, Start: t, End: t + d})
			t += d
		}
	}
	return out
}
