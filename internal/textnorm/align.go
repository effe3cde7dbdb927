package textnorm

import (
	"math"
	"slices"
	"sort"
)

// Word places one word of a text in time: Offset and Length are byte offsets into the text,
// Start and End are seconds from the start of the audio.
type Word struct {
	Offset, Length int
	Start, End     float64
}

// runeStarts returns the byte offset of every character of text (invalid bytes count as one
// character each, as in a range loop).
func runeStarts(text string) []int {
	starts := make([]int, 0, len(text))
	for i := range text {
		starts = append(starts, i)
	}
	return starts
}

// runeAtByte returns the index of the character that contains byte b.
func runeAtByte(starts []int, b int) int {
	return sort.SearchInts(starts, b+1) - 1
}

// CharAlignment turns word timings into one time slot per character of text, the shape of the
// API's alignment (characters, character_start_times_seconds, character_end_times_seconds).
//
// Characters inside a word share the word's time evenly; characters between words (spaces,
// punctuation) share the gap between them, those before the first word share [0, first start]
// and those after the last word share [last end, total]. Whatever the input, the result has one
// entry per character, starts are non-decreasing, each end is ≥ its start and ≤ the next start,
// and all times lie in [0, total]: words that overlap, are out of order, fall outside the text or
// have times outside [0, total] are dropped or clamped.
func CharAlignment(text string, words []Word, total float64) (chars []string, starts, ends []float64) {
	offs := runeStarts(text)
	n := len(offs)
	chars = make([]string, n)
	for k, off := range offs {
		end := len(text)
		if k+1 < n {
			end = offs[k+1]
		}
		chars[k] = text[off:end]
	}
	starts, ends = make([]float64, n), make([]float64, n)

	if math.IsInf(total, 1) {
		total = 0
		for _, w := range words {
			if !math.IsInf(w.End, 0) && w.End > total {
				total = w.End
			}
		}
	}
	if !(total > 0) { // also NaN
		total = 0
	}

	// Words as character ranges, in text order, without overlaps.
	ws := slices.Clone(words)
	slices.SortStableFunc(ws, func(a, b Word) int { return a.Offset - b.Offset })
	fill := func(from, to int, t0, t1 float64) {
		m := to - from
		for j := range m {
			starts[from+j] = t0 + (t1-t0)*float64(j)/float64(m)
			if j+1 < m {
				ends[from+j] = t0 + (t1-t0)*float64(j+1)/float64(m)
			} else {
				ends[from+j] = t1
			}
		}
	}
	next, prevEnd := 0, 0.0 // first character not yet placed, end time of the last word
	for _, w := range ws {
		if w.Length <= 0 || w.Offset < 0 || w.Offset >= len(text) {
			continue
		}
		a := runeAtByte(offs, w.Offset)
		b := runeAtByte(offs, w.Offset+min(w.Length, len(text)-w.Offset)-1) + 1
		if a < next {
			continue // overlaps the previous word
		}
		start := clampTime(w.Start, prevEnd, total)
		end := clampTime(w.End, start, total)
		fill(next, a, prevEnd, start)
		fill(a, b, start, end)
		next, prevEnd = b, end
	}
	fill(next, n, prevEnd, total)
	return chars, starts, ends
}

// clampTime limits t to [lo, hi], mapping NaN to lo.
func clampTime(t, lo, hi float64) float64 {
	if !(t >= lo) {
		return lo
	}
	return min(t, max(hi, lo))
}

// MapAlignment moves the alignment of normalized text (from CharAlignment on Normalize's output)
// onto the original text, using Normalize's byte mapping. Each original character spans from the
// earliest start to the latest end of the normalized characters that came from it; characters
// that produced nothing get a zero-length slot at the end of the character before them (or the
// start of the first timed character). The result has one entry per character of original, with
// the same ordering guarantees as CharAlignment.
func MapAlignment(original, normalized string, mapping []int, starts, ends []float64) (chars []string, origStarts, origEnds []float64) {
	chars, _, _ = CharAlignment(original, nil, 0)
	offs := runeStarts(original)
	n := len(offs)
	lo, hi := make([]float64, n), make([]float64, n)
	for k := range n {
		lo[k], hi[k] = math.Inf(1), math.Inf(-1)
	}
	q := 0 // index of the normalized character
	for b := range normalized {
		if q >= len(starts) || q >= len(ends) || b >= len(mapping) {
			break
		}
		if src := mapping[b]; src >= 0 && src < len(original) && !math.IsNaN(starts[q]) && !math.IsNaN(ends[q]) {
			k := runeAtByte(offs, src)
			lo[k], hi[k] = min(lo[k], starts[q]), max(hi[k], ends[q])
		}
		q++
	}

	origStarts, origEnds = make([]float64, n), make([]float64, n)
	prevEnd := 0.0
	for k := range n {
		if !math.IsInf(lo[k], 1) {
			prevEnd = max(lo[k], 0)
			break
		}
	}
	for k := range n {
		s, e := prevEnd, prevEnd
		if !math.IsInf(lo[k], 1) {
			s = max(lo[k], prevEnd)
			e = max(hi[k], s)
		}
		origStarts[k], origEnds[k] = s, e
		prevEnd = e
	}
	return chars, origStarts, origEnds
}

// Millis converts an alignment to the WebSocket API's integer form (charStartTimesMs,
// charsDurationsMs). Both are rounded from absolute times, so rounding errors do not accumulate.
func Millis(starts, ends []float64) (startMs, durationsMs []int) {
	startMs, durationsMs = make([]int, len(starts)), make([]int, len(starts))
	for k := range starts {
		s := int(math.Round(starts[k] * 1000))
		e := s
		if k < len(ends) {
			e = max(int(math.Round(ends[k]*1000)), s)
		}
		startMs[k], durationsMs[k] = s, e-s
	}
	return startMs, durationsMs
}
