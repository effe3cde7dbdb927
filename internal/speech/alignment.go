package speech

import (
	"unicode/utf8"

	"timbre/internal/textnorm"
)

// Alignment is the API's character alignment: three parallel arrays.
type Alignment struct {
	Characters []string  `json:"characters"`
	Starts     []float64 `json:"character_start_times_seconds"`
	Ends       []float64 `json:"character_end_times_seconds"`
}

// Alignments is what a history item keeps.
type Alignments struct {
	Alignment           Alignment `json:"alignment"`
	NormalizedAlignment Alignment `json:"normalized_alignment"`
}

func (a *Alignment) append(b Alignment) {
	a.Characters = append(a.Characters, b.Characters...)
	a.Starts = append(a.Starts, b.Starts...)
	a.Ends = append(a.Ends, b.Ends...)
}

// charAlignment aligns every character of text (one chunk) between from and to seconds, given
// its words' times (offsets relative to text, times absolute).
func charAlignment(text string, words []textnorm.Word, from, to float64) Alignment {
	// CharAlignment works from zero; shift the words into the chunk and back.
	local := make([]textnorm.Word, len(words))
	for i, w := range words {
		local[i] = w
		local[i].Start -= from
		local[i].End -= from
	}
	chars, starts, ends := textnorm.CharAlignment(text, local, to-from)
	for i := range starts {
		starts[i] = round3(starts[i] + from)
		ends[i] = round3(ends[i] + from)
	}
	return Alignment{Characters: chars, Starts: starts, Ends: ends}
}

// origOffset is the byte of the original text that normalised byte n starts at.
func origOffset(mapping []int, n, textLen int) int {
	if n >= len(mapping) {
		return textLen
	}
	return mapping[n]
}

// mapAlignment gives each character of text[from:to] the span of the normalised characters that
// came from it; a character that vanished in normalisation gets a zero-length slot at the time
// reached so far (t0 at the start of the chunk).
func mapAlignment(text string, from, to int, mapping []int, normBase int, norm Alignment, t0 float64) Alignment {
	type span struct {
		start, end float64
		ok         bool
	}
	spans := map[int]*span{}
	nb := normBase
	for i, ch := range norm.Characters {
		o := origOffset(mapping, nb, len(text))
		// Find the original character that byte o belongs to.
		for o > 0 && o < len(text) && !utf8.RuneStart(text[o]) {
			o--
		}
		sp := spans[o]
		if sp == nil {
			sp = &span{start: norm.Starts[i], end: norm.Ends[i], ok: true}
			spans[o] = sp
		} else {
			sp.start = min(sp.start, norm.Starts[i])
			sp.end = max(sp.end, norm.Ends[i])
		}
		nb += len(ch)
	}
	var out Alignment
	at := t0
	for i, r := range text[from:to] {
		o := from + i
		s, e := at, at
		if sp := spans[o]; sp != nil {
			s, e = max(sp.start, at), max(sp.end, at)
		}
		out.Characters = append(out.Characters, string(r))
		out.Starts = append(out.Starts, round3(s))
		out.Ends = append(out.Ends, round3(e))
		at = s
	}
	return out
}

func round3(x float64) float64 {
	return float64(int64(x*1000+0.5)) / 1000
}
