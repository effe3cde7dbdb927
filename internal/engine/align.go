package engine

import (
	"context"
	"strings"
	"unicode/utf8"
)

// AlignedWord is one word of a forced alignment: where the word of the given text was heard.
type AlignedWord struct {
	Text       string
	Start, End float64 // seconds from the start of the audio
	// Loss is how badly the audio fits the word (≥ 0, lower is better); see the engine's Align.
	Loss float64
	// Heard is false when the engine could not place the word itself (it has no pronunciation:
	// neither the dictionary nor letter-to-sound rules give one, or the alignment ended before
	// it) and its time was spread over the gap between its placed neighbours.
	Heard bool
}

// Aligner places the words of a known text in audio (forced alignment). Implementations must
// be safe for concurrent use.
type Aligner interface {
	// Align places words (lower-case dictionary words in spoken order) in mono audio (resampled
	// to RecognitionRate when it has another rate). The result has one entry per word, in order,
	// with non-decreasing times inside [0, the audio's length].
	Align(ctx context.Context, pcm PCM, words []string) ([]AlignedWord, error)
}

// spreadUnheard gives each word not heard a time: the words of a run between two heard words
// share the gap between them in proportion to their lengths in letters (from 0 before the first
// heard word, up to total after the last). Their loss is unheardLoss.
func spreadUnheard(words []AlignedWord, total float64) {
	for i := 0; i < len(words); {
		if words[i].Heard {
			i++
			continue
		}
		j := i
		for j < len(words) && !words[j].Heard {
			j++
		}
		t0, t1 := 0.0, total
		if i > 0 {
			t0 = words[i-1].End
		}
		if j < len(words) {
			t1 = words[j].Start
		}
		t1 = max(t1, t0)
		var letters int
		for _, w := range words[i:j] {
			letters += max(utf8.RuneCountInString(w.Text), 1)
		}
		at := t0
		for k := i; k < j; k++ {
			d := (t1 - t0) * float64(max(utf8.RuneCountInString(words[k].Text), 1)) / float64(letters)
			words[k].Start, words[k].End, words[k].Loss = at, min(at+d, t1), unheardLoss
			at += d
		}
		i = j
	}
}

// unheardLoss is the loss of a word whose time was spread rather than heard: worse than any
// word the acoustic model placed with a plausible fit.
const unheardLoss = 10

// grammarWord is word as a JSGF token: only letters, digits and apostrophes (anything else would
// end the token or need quoting), "" when nothing is left.
func grammarWord(word string) string {
	return strings.Map(func(r rune) rune {
		if r == '\'' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			return r
		}
		return -1
	}, strings.ToLower(word))
}
