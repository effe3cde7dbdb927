package tts

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"timbre/internal/textnorm"
)

// Alignment is the API's character alignment: three parallel arrays.
type Alignment struct {
	Characters []string  `json:"characters"`
	Starts     []float64 `json:"character_start_times_seconds"`
	Ends       []float64 `json:"character_end_times_seconds"`
}

// AudioWithTimestamps is the JSON of the with-timestamps routes: base64 audio and the alignment
// of the characters it covers (null on a streamed line that carries audio only).
type AudioWithTimestamps struct {
	AudioBase64         string     `json:"audio_base64"`
	Alignment           *Alignment `json:"alignment"`
	NormalizedAlignment *Alignment `json:"normalized_alignment"`
}

// Alignments is what a history item keeps.
type Alignments struct {
	Alignment           Alignment `json:"alignment"`
	NormalizedAlignment Alignment `json:"normalized_alignment"`
}

// storedJSON is string(json.Marshal(a)), or "" when that fails, as the history row keeps it.
// It writes the common cases itself: encoding/json took over a third of Finish's time for a
// stream's ~2,500 times. Times that are whole milliseconds (round3's) print as those decimals;
// other times, and characters JSON escapes, go through encoding/json.
func (a *Alignments) storedJSON() string {
	b := make([]byte, 0, 40*(len(a.Alignment.Characters)+len(a.NormalizedAlignment.Characters))+128)
	b = append(b, `{"alignment":`...)
	b, ok1 := a.Alignment.appendJSON(b)
	b = append(b, `,"normalized_alignment":`...)
	b, ok2 := a.NormalizedAlignment.appendJSON(b)
	if !ok1 || !ok2 {
		return ""
	}
	return string(append(b, '}'))
}

func (a *Alignment) appendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"characters":`...)
	if a.Characters == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, c := range a.Characters {
			if i > 0 {
				b = append(b, ',')
			}
			if len(c) == 1 && c[0] >= 0x20 && c[0] < 0x7f && c[0] != '"' && c[0] != '\\' && c[0] != '<' && c[0] != '>' && c[0] != '&' {
				b = append(b, '"', c[0], '"') // printable ASCII that JSON (with HTML escaping) keeps
				continue
			}
			enc, err := json.Marshal(c)
			if err != nil {
				return b, false
			}
			b = append(b, enc...)
		}
		b = append(b, ']')
	}
	b = append(b, `,"character_start_times_seconds":`...)
	b, ok1 := appendTimesJSON(b, a.Starts)
	b = append(b, `,"character_end_times_seconds":`...)
	b, ok2 := appendTimesJSON(b, a.Ends)
	return append(b, '}'), ok1 && ok2
}

// appendTimesJSON appends ts as encoding/json writes a []float64.
func appendTimesJSON(b []byte, ts []float64) ([]byte, bool) {
	if ts == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i, t := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		if ms := math.Round(t * 1000); ms >= 0 && ms < 1e12 && ms/1000 == t && !math.Signbit(t) {
			// t is the double nearest to ms/1000, and below 10^9 doubles are far closer together
			// than 1 ms, so ms/1000 written out is t's shortest decimal: what encoding/json
			// (strconv's 'f', -1) writes.
			n := int64(ms)
			b = strconv.AppendInt(b, n/1000, 10)
			if frac := n % 1000; frac != 0 {
				digits := []byte{'.', byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
				for digits[len(digits)-1] == '0' {
					digits = digits[:len(digits)-1]
				}
				b = append(b, digits...)
			}
			continue
		}
		enc, err := json.Marshal(t) // fails for NaN and ±Inf, as encoding/json does
		if err != nil {
			return b, false
		}
		b = append(b, enc...)
	}
	return append(b, ']'), true
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
	// spans[o-from] is for the original character starting at byte o (only those are looked up).
	spans := make([]span, max(to-from, 0))
	nb := normBase
	for i, ch := range norm.Characters {
		o := origOffset(mapping, nb, len(text))
		// Find the original character that byte o belongs to.
		for o > 0 && o < len(text) && !utf8.RuneStart(text[o]) {
			o--
		}
		if o >= from && o < to {
			if sp := &spans[o-from]; !sp.ok {
				*sp = span{start: norm.Starts[i], end: norm.Ends[i], ok: true}
			} else {
				sp.start = min(sp.start, norm.Starts[i])
				sp.end = max(sp.end, norm.Ends[i])
			}
		}
		nb += len(ch)
	}
	var out Alignment // nil slices for no characters, as JSON null
	if n := utf8.RuneCountInString(text[from:to]); n > 0 {
		out = Alignment{Characters: make([]string, 0, n), Starts: make([]float64, 0, n), Ends: make([]float64, 0, n)}
	}
	at := t0
	for i, r := range text[from:to] {
		s, e := at, at
		if sp := spans[i]; sp.ok {
			s, e = max(sp.start, at), max(sp.end, at)
		}
		ch := string(r) // U+FFFD for an invalid byte
		if r != utf8.RuneError {
			ch = text[from+i : from+i+utf8.RuneLen(r)] // the same bytes, without an allocation
		}
		out.Characters = append(out.Characters, ch)
		out.Starts = append(out.Starts, round3(s))
		out.Ends = append(out.Ends, round3(e))
		at = s
	}
	return out
}

func round3(x float64) float64 {
	return float64(int64(x*1000+0.5)) / 1000
}
