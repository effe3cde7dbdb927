package convert

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"timbre/internal/engine"
	"timbre/internal/engine/enginetest"
	"timbre/internal/voiceprint"
)

var (
	fliteOnce sync.Once
	flite     *engine.Flite
	fliteErr  error
)

// speak synthesises text with one of flite's voices.
func speak(tb testing.TB, voice, text string) engine.PCM {
	tb.Helper()
	fliteOnce.Do(func() { flite, fliteErr = engine.NewFlite() })
	if fliteErr != nil {
		tb.Fatal(fliteErr)
	}
	res, err := flite.Synthesize(context.Background(), engine.Request{Text: text, Voice: voice, Language: "en"})
	if err != nil {
		tb.Fatal(err)
	}
	return res.Audio
}

func TestPlan(t *testing.T) {
	male := &voiceprint.Print{F0Median: 110, Formants: [3]float64{500, 1500, 2500}}
	female := &voiceprint.Print{F0Median: 200, Formants: [3]float64{575, 1725, 2875}}
	s := Plan(male, female)
	if s.Pitch < 1.81 || s.Pitch > 1.82 || s.Formant < 1.149 || s.Formant > 1.151 {
		t.Errorf("male → female: %+v, want pitch 1.818, formant 1.15", s)
	}
	s = Plan(&voiceprint.Print{F0Median: 400}, &voiceprint.Print{F0Median: 80, Formants: [3]float64{1, 1, 1}})
	if s.Pitch != MinPitch || s.Formant != 1 {
		t.Errorf("out of range: %+v, want pitch clamped to %v and formant 1 (source has none)", s, MinPitch)
	}
	if s := Plan(nil, female); s.Pitch != 1 || s.Formant != 1 {
		t.Errorf("no source print: %+v, want no shift", s)
	}
}

// TestApplyKeepsDuration: a shift keeps the recording's length to the sample at the work rate.
func TestApplyKeepsDuration(t *testing.T) {
	in := speak(t, "rms", "The birch canoe slid on the smooth planks.")
	out, err := Apply(context.Background(), in, Shift{Pitch: 1.7, Formant: 1.15})
	if err != nil {
		t.Fatal(err)
	}
	if out.SampleRate != in.SampleRate || len(out.Samples) != len(in.Samples) {
		t.Fatalf("out %d samples at %d Hz, in %d at %d Hz", len(out.Samples), out.SampleRate, len(in.Samples), in.SampleRate)
	}
	var energy float64
	for _, v := range out.Samples {
		energy += float64(v) * float64(v)
	}
	if energy == 0 {
		t.Fatal("the output is silent")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Apply(ctx, in, Shift{Pitch: 1.2, Formant: 1}); err == nil {
		t.Error("a cancelled context converted anyway")
	}
}

// TestConvertedWordsHeard: Harvard sentences said by a male voice are converted to a female
// voice and the other way round, by the shift Plan makes of their measured prints. The converted
// speech's median F0 is within 15 % of the target voice's; the recogniser's word error rate on it
// is at most 25 points worse than on the recordings themselves. The speed is logged here and
// measured by BenchmarkConvert (scripts/bench.sh sts asserts ≥ 5× real time): a timed test would
// fail on a busy machine.
func TestConvertedWordsHeard(t *testing.T) {
	if testing.Short() {
		t.Skip("recogniser test")
	}
	if why := enginetest.PocketsphinxBatchAvailable(); why != "" {
		t.Skip(why)
	}
	// A decoder of its own: what a decoder heard before changes its next results.
	r, err := engine.NewPocketsphinx(engine.PocketsphinxConfig{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sentences := enginetest.HarvardSentences()[:10]
	passage := strings.Join(enginetest.HarvardSentences()[20:26], " ")
	for _, c := range []struct{ from, to string }{{"rms", "slt"}, {"slt", "rms"}} {
		target := analyse(t, speak(t, c.to, passage))
		var refs, before, after []string
		var in, out []int16
		rate := 0
		var took time.Duration
		for _, s := range sentences {
			pcm := speak(t, c.from, s)
			in, rate = append(in, pcm.Samples...), pcm.SampleRate
			refs = append(refs, s)
			before = append(before, transcribe(t, r, pcm))
		}
		source := analyse(t, engine.PCM{Samples: in, SampleRate: rate})
		shift := Plan(source, target)
		for _, s := range sentences {
			pcm := speak(t, c.from, s)
			start := time.Now()
			conv, err := Parametric{}.Convert(context.Background(), pcm, source, Target{Print: target})
			took += time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, conv.Samples...)
			after = append(after, transcribe(t, r, conv))
		}
		got := analyse(t, engine.PCM{Samples: out, SampleRate: rate})
		audioSecs := float64(len(in)) / float64(rate)
		w0, w1 := enginetest.WER(refs, before), enginetest.WER(refs, after)
		speed := audioSecs / took.Seconds()
		dev := math.Abs(got.F0Median-target.F0Median) / target.F0Median
		t.Logf("%s → %s, shift %+v: F0 %.1f → %.1f Hz (target %.1f, %.1f %% off); WER %.1f %% → %.1f %% (+%.1f points); %.1f s at %.1f× real time",
			c.from, c.to, shift, source.F0Median, got.F0Median, target.F0Median, 100*dev, w0, w1, w1-w0, audioSecs, speed)
		if dev > 0.15 {
			t.Errorf("%s → %s: converted F0 %.1f Hz is %.0f %% from the target's %.1f Hz", c.from, c.to, got.F0Median, 100*dev, target.F0Median)
		}
		if w1-w0 > 25 {
			t.Errorf("%s → %s: WER rose by %.1f points, more than 25", c.from, c.to, w1-w0)
		}
	}
}

func analyse(tb testing.TB, pcm engine.PCM) *voiceprint.Print {
	tb.Helper()
	p, err := voiceprint.Analyse(pcm)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func transcribe(tb testing.TB, r *engine.Pocketsphinx, pcm engine.PCM) string {
	tb.Helper()
	tr, err := r.Transcribe(context.Background(), pcm, engine.TranscribeOptions{Language: "en"})
	if err != nil {
		tb.Fatal(err)
	}
	return strings.TrimSpace(tr.Text)
}

// BenchmarkConvert reports how many times faster than real time a sentence is converted (x-rt;
// scripts/bench.sh sts).
func BenchmarkConvert(b *testing.B) {
	in := speak(b, "rms", enginetest.HarvardSentences()[0])
	b.ResetTimer()
	for b.Loop() {
		if _, err := Apply(context.Background(), in, Shift{Pitch: 1.8, Formant: 1.15}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(in.Seconds()*float64(b.N)/b.Elapsed().Seconds(), "x-rt")
}
