package tts

import (
	"encoding/json"
	"math"
	"math/rand"
	"strconv"
	"testing"

	"timbre/internal/textnorm"
)

// storedJSON writes exactly what json.Marshal does: real alignments of normalised texts with
// characters JSON escapes, times that are whole milliseconds or not, nil and empty slices, and
// values encoding/json refuses.
func TestStoredJSONMatchesEncodingJSON(t *testing.T) {
	check := func(name string, al *Alignments) {
		t.Helper()
		want, err := json.Marshal(al)
		if err != nil {
			want = nil
		}
		if got := al.storedJSON(); got != string(want) {
			t.Fatalf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	r := rand.New(rand.NewSource(1))
	texts := []string{
		"Dr. Smith paid $12.50 for 3 books. Then he left!",
		`Quotes "like this", a back\slash, <tags> & ampersands; tabs	and
newlines. Ünïcode ✓, emoji 🎉, line sep` + "\u2028 and a control \x01 char. DEL \x7f.",
		"The quick brown fox jumps over the lazy dog by the river. Streaming speech should begin long before the whole passage is ready.",
	}
	for _, text := range texts {
		norm, mapping := textnorm.Normalize(text, "en")
		al := &Alignments{}
		normDone, origDone, at := 0, 0, 0.0
		spans := textnorm.SplitSentences(norm)
		for i, sp := range spans {
			normEnd := sp.End
			if i == len(spans)-1 {
				normEnd = len(norm)
			}
			var words []textnorm.Word
			for k := 0; k < normEnd-normDone; k += 4 {
				words = append(words, textnorm.Word{Offset: k, Length: 3, Start: at + 3*r.Float64(), End: at + 3 + r.Float64()})
			}
			dur := 1 + 40*r.Float64()
			normAl := charAlignment(norm[normDone:normEnd], words, at, at+dur)
			origEnd := len(text)
			if i < len(spans)-1 {
				origEnd = origOffset(mapping, normEnd, len(text))
			}
			al.Alignment.append(mapAlignment(text, origDone, origEnd, mapping, normDone, normAl, at))
			al.NormalizedAlignment.append(normAl)
			at += dur
			normDone, origDone = normEnd, max(origDone, origEnd)
		}
		check(text, al)
	}

	check("nil", &Alignments{})
	check("empty", &Alignments{Alignment: Alignment{Characters: []string{}, Starts: []float64{}, Ends: []float64{}}})
	odd := []float64{0, math.Copysign(0, -1), -1.5, 1e-7, 3e-9, 1e21, 1.0000001, 0.1 + 0.2, 123456.789, 9007199254740.993, 1e300}
	for i := range 3000 {
		odd = append(odd, round3(r.Float64()*math.Pow(10, float64(i%12))), r.Float64()*100)
	}
	check("odd times", &Alignments{Alignment: Alignment{Characters: []string{"a"}, Starts: odd, Ends: odd}})
	check("NaN", &Alignments{Alignment: Alignment{Characters: []string{"a"}, Starts: []float64{math.NaN()}}})
	check("Inf", &Alignments{NormalizedAlignment: Alignment{Ends: []float64{math.Inf(1)}}})

	// Every whole number of milliseconds up to 1,000 s, and a sample of larger ones, prints as
	// strconv does.
	for i := range int64(1_200_000) {
		ms := i
		if i >= 1_000_000 {
			ms = r.Int63n(1 << 53)
		}
		f := float64(ms) / 1000
		got, _ := appendTimesJSON(nil, []float64{f})
		if want := "[" + strconv.FormatFloat(f, 'f', -1, 64) + "]"; string(got) != want {
			t.Fatalf("%d ms: got %s, want %s", ms, got, want)
		}
	}
}
