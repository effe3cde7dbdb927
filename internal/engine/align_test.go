package engine

import (
	"context"
	"math"
	"syscall"
	"testing"
	"time"

	"timbre/internal/engine/enginetest"
)

// fliteMarked is Harvard sentences [from, to) spoken by a flite voice, joined with pause seconds
// of silence, with each word the synthesizer marked and its true times in the joined audio.
func fliteMarked(tb testing.TB, voice string, from, to int, pause float64) (PCM, []AlignedWord) {
	tb.Helper()
	fl, err := NewFlite()
	if err != nil {
		tb.Fatal(err)
	}
	var pcm PCM
	var truth []AlignedWord
	for i, s := range enginetest.HarvardSentences()[from:to] {
		res, err := fl.Synthesize(context.Background(), Request{Text: s, Voice: voice})
		if err != nil {
			tb.Fatal(err)
		}
		if i == 0 {
			pcm.SampleRate = res.Audio.SampleRate
		} else {
			pcm.Samples = append(pcm.Samples, make([]int16, int(pause*float64(pcm.SampleRate)))...)
		}
		offset := pcm.Seconds()
		for _, m := range res.Words {
			ws := enginetest.Words(s[m.Offset : m.Offset+m.Length])
			if len(ws) != 1 {
				tb.Fatalf("flite marked %q as one word", s[m.Offset:m.Offset+m.Length])
			}
			truth = append(truth, AlignedWord{Text: ws[0], Start: offset + m.Start, End: offset + m.End})
		}
		pcm.Samples = append(pcm.Samples, res.Audio.Samples...)
	}
	return pcm, truth
}

// boundaryError is the mean absolute difference of the words' starts and ends (seconds).
func boundaryError(got, want []AlignedWord) float64 {
	var sum float64
	for i := range want {
		sum += math.Abs(got[i].Start-want[i].Start) + math.Abs(got[i].End-want[i].End)
	}
	return sum / float64(2*len(want))
}

// TestAlignBoundaryError: the aligner's word boundaries on flite speech (20 Harvard sentences per
// voice, 0.4 s pauses between them) against the synthesizer's own word marks.
func TestAlignBoundaryError(t *testing.T) {
	ps := sharedPocketsphinx(t)
	for _, voice := range []string{"rms", "slt"} {
		t.Run(voice, func(t *testing.T) {
			pcm, truth := fliteMarked(t, voice, 0, 20, 0.4)
			words := make([]string, len(truth))
			for i, w := range truth {
				words[i] = w.Text
			}
			got, err := ps.Align(context.Background(), pcm, words)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(truth) {
				t.Fatalf("%d words aligned, want %d", len(got), len(truth))
			}
			heard, loss := 0, 0.0
			for i, w := range got {
				loss += w.Loss / float64(len(got))
				if w.Text != words[i] || w.End < w.Start || (i > 0 && w.Start < got[i-1].End-1e-9) || w.Loss < 0 {
					t.Fatalf("word %d: %+v (previous %+v)", i, w, got[max(i-1, 0)])
				}
				if w.Heard {
					heard++
				}
			}
			e := boundaryError(got, truth)
			t.Logf("%s: %d words (%d placed by the acoustic model), %.1f s of audio: mean absolute boundary error %.1f ms, mean loss %.2f",
				voice, len(got), heard, pcm.Seconds(), 1000*e, loss)
			if heard < len(got)*95/100 {
				t.Errorf("only %d of %d words placed", heard, len(got))
			}
			if e > 0.060 {
				t.Errorf("mean boundary error %.1f ms, want ≤ 60 ms", 1000*e)
			}
		})
	}
}

// TestAlignUnknownWords: a word the aligner has no pronunciation for (not in the dictionary,
// and nothing espeak-ng's English rules read: here letters the grammar cannot hold) is spread
// over the gap between its placed neighbours rather than dropped. (Words outside the dictionary
// that espeak-ng can read are placed: TestAlignInventedWords.)
func TestAlignUnknownWords(t *testing.T) {
	ps := sharedPocketsphinx(t)
	pcm, truth := fliteMarked(t, "rms", 0, 1, 0)
	words := []string{}
	for i, w := range truth {
		words = append(words, w.Text)
		if i == 2 {
			words = append(words, "øæ")
		}
	}
	got, err := ps.Align(context.Background(), pcm, words)
	if err != nil {
		t.Fatal(err)
	}
	if got[3].Heard || got[3].Text != "øæ" || got[3].Start < got[2].End || got[3].End > got[4].Start || got[3].Loss != unheardLoss {
		t.Errorf("unknown word: %+v between %+v and %+v", got[3], got[2], got[4])
	}
	for i, w := range got {
		if i != 3 && !w.Heard {
			t.Errorf("word %d %q not placed", i, w.Text)
		}
	}
}

func TestSpreadUnheard(t *testing.T) {
	ws := []AlignedWord{{Text: "ab"}, {Text: "x", Start: 1, End: 2, Heard: true}, {Text: "abc"}, {Text: "a"}, {Text: "y", Start: 4, End: 5, Heard: true}, {Text: "z"}}
	spreadUnheard(ws, 6)
	want := [][2]float64{{0, 1}, {1, 2}, {2, 3.5}, {3.5, 4}, {4, 5}, {5, 6}}
	for i, w := range ws {
		if math.Abs(w.Start-want[i][0]) > 1e-9 || math.Abs(w.End-want[i][1]) > 1e-9 {
			t.Errorf("word %d: %v–%v, want %v", i, w.Start, w.End, want[i])
		}
	}
}

// BenchmarkAlign: forced alignment of the 40 Harvard sentences spoken by slt (0.6 s pauses, about
// two minutes of audio) in one decoder pass: how many times faster than real time, and the
// process's peak resident memory afterwards.
func BenchmarkAlign(b *testing.B) {
	ps := sharedPocketsphinx(b)
	pcm, truth := fliteMarked(b, "slt", 0, 40, 0.6)
	words := make([]string, len(truth))
	for i, w := range truth {
		words[i] = w.Text
	}
	if _, err := ps.Align(context.Background(), pcm, words[:5]); err != nil { // loads the decoder
		b.Fatal(err)
	}
	var wall float64
	for b.Loop() {
		t0 := time.Now()
		if _, err := ps.Align(context.Background(), pcm, words); err != nil {
			b.Fatal(err)
		}
		if d := time.Since(t0).Seconds(); wall == 0 || d < wall {
			wall = d
		}
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b.ReportMetric(pcm.Seconds(), "audio-s")
	b.ReportMetric(pcm.Seconds()/wall, "x-rt")
	b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MB")
	b.ReportMetric(0, "ns/op")
}

// TestAlignTextBeyondAudio: text the audio does not reach (a second sentence never spoken) does
// not pull the spoken words out of place.
func TestAlignTextBeyondAudio(t *testing.T) {
	ps := sharedPocketsphinx(t)
	pcm, truth := fliteMarked(t, "rms", 0, 1, 0)
	var words []string
	for _, w := range truth {
		words = append(words, w.Text)
	}
	words = append(words, enginetest.Words(enginetest.HarvardSentences()[1])...)
	got, err := ps.Align(context.Background(), pcm, words)
	if err != nil {
		t.Fatal(err)
	}
	e := boundaryError(got[:len(truth)], truth)
	t.Logf("spoken words' boundary error %.1f ms", 1000*e)
	if e > 0.060 {
		t.Errorf("boundary error %.1f ms with text beyond the audio", 1000*e)
	}
	for _, w := range got[len(truth):] {
		if w.Start < got[len(truth)-1].End-1e-9 || w.End > pcm.Seconds()+1e-9 {
			t.Errorf("unspoken word %+v", w)
		}
	}
}

// TestAlignLossTellsWrongText: the loss of words aligned to audio that says something else is
// clearly higher than of the words really spoken.
func TestAlignLossTellsWrongText(t *testing.T) {
	ps := sharedPocketsphinx(t)
	pcm, truth := fliteMarked(t, "rms", 0, 1, 0)
	var right []string
	for _, w := range truth {
		right = append(right, w.Text)
	}
	wrong := enginetest.Words(enginetest.HarvardSentences()[1])
	mean := func(words []string) float64 {
		got, err := ps.Align(context.Background(), pcm, words)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, w := range got {
			sum += w.Loss
		}
		return sum / float64(len(got))
	}
	r, w := mean(right), mean(wrong)
	t.Logf("mean loss: spoken text %.2f, other text %.2f", r, w)
	if !(w > 1.5*r) {
		t.Errorf("the other text's loss %.2f is not clearly above the spoken text's %.2f", w, r)
	}
}
