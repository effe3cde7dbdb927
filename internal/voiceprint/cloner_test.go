package voiceprint

import (
	"context"
	"math"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"timbre/internal/engine"
	"timbre/internal/errs"
)

// synthetic is a speaker made from an engine voice by a known transformation with real ffmpeg.
type synthetic struct {
	id, name, voice, filter string
	pitch, tempo            float64 // the shift's factors, for the log
}

var syntheticSpeakers = []synthetic{
	{"awb+4st", "awb +4 st, 10 % faster", "awb", "rubberband=pitch=1.2599:tempo=1.1", 1.2599, 1.1},
	{"slt-3st", "slt −3 st, 10 % slower", "slt", "rubberband=pitch=0.8409:tempo=0.9", 0.8409, 0.9},
	{"kal16+2st", "kal16 +2 st by resampling", "kal16", "asetrate=17959,aresample=16000,atempo=0.95", 1.1225, 1.0664},
}

// The texts: samples, a new clip of the same speaker, and what the clone says; all different.
var (
	sampleText = func() []string { return harvard(0, 8) }
	newClip    = func() []string { return harvard(20, 26) }
	cloneText  = func() []string { return harvard(30, 37) }
)

// englishBaseVoices are the engine voices a clip could be confused with: flite's four and the
// espeak-ng English voices of the premade catalogue.
var englishBaseVoices = []struct{ engine, voice string }{
	{"flite", "slt"}, {"flite", "awb"}, {"flite", "rms"}, {"flite", "kal16"},
	{"espeak", "en-us+f2"}, {"espeak", "en-us+f4"}, {"espeak", "en-us+f1"}, {"espeak", "en-us+m2"},
	{"espeak", "en-us+m1"}, {"espeak", "en-gb+m3"}, {"espeak", "en-gb+f3"}, {"espeak", "en-gb-x-rp+f2"},
	{"espeak", "en-gb-scotland+m4"}, {"espeak", "en-029+m3"},
}

var cloner = sync.OnceValue(func() *Cloner {
	f, err := engine.NewFlite()
	if err != nil {
		panic(err)
	}
	return NewCloner(f)
})

type cloneFigures struct {
	speaker        synthetic
	sample, clone  *Print
	fit            Fit
	fitTime        time.Duration
	rank           int // of the speaker's print for its new clip, 1 = most similar
	ranking        []string
	cloneSimilar   float64 // Similarity(sample, clone speech)
	nearestOtherTo float64
}

// cloneAll builds every synthetic speaker, fits a clone, speaks new text with it and ranks the
// speaker's print for a new clip against every base voice and the other speakers.
func cloneAll(t testing.TB) []cloneFigures {
	fl := flite(t)
	es, err := engine.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	syn := map[string]engine.Synthesizer{"flite": fl, "espeak": es}
	normal := engine.Prosody{Rate: 1, Pitch: 50, PitchRange: 50}
	type cand struct {
		name  string
		print *Print
	}
	var cands []cand
	for _, v := range englishBaseVoices {
		p, err := Analyse(say(t, syn[v.engine], v.voice, normal, sampleText()))
		if err != nil {
			t.Fatalf("%s %s: %v", v.engine, v.voice, err)
		}
		cands = append(cands, cand{v.engine + " " + v.voice, p})
	}
	out := make([]cloneFigures, len(syntheticSpeakers))
	clips := make([]*Print, len(syntheticSpeakers))
	for i, s := range syntheticSpeakers {
		p, err := Analyse(ffmpegFilter(t, say(t, fl, s.voice, normal, sampleText()), s.filter))
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		out[i].speaker, out[i].sample = s, p
		cands = append(cands, cand{s.name, p})
		clips[i], err = Analyse(ffmpegFilter(t, say(t, fl, s.voice, normal, newClip()), s.filter))
		if err != nil {
			t.Fatalf("%s new clip: %v", s.name, err)
		}
	}
	cl := cloner()
	if err := cl.Calibrate(context.Background()); err != nil { // not part of a fit's time
		t.Fatal(err)
	}
	for i := range out {
		f := &out[i]
		start := time.Now()
		fit, err := cl.Fit(context.Background(), f.sample)
		if err != nil {
			t.Fatalf("%s: fit: %v", f.speaker.name, err)
		}
		f.fit, f.fitTime = fit, time.Since(start)
		if f.clone, err = Analyse(say(t, fl, fit.EngineVoice, fit.Prosody(), cloneText())); err != nil {
			t.Fatalf("%s: clone speech: %v", f.speaker.name, err)
		}
		f.cloneSimilar = Similarity(f.sample.Embedding, f.clone.Embedding)
		type scored struct {
			name string
			sim  float64
		}
		var ranked []scored
		for _, c := range cands {
			ranked = append(ranked, scored{c.name, Similarity(clips[i].Embedding, c.print.Embedding)})
		}
		sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].sim > ranked[b].sim })
		for r, s := range ranked {
			if s.name == f.speaker.name {
				f.rank = r + 1
			}
			if r < 3 {
				f.ranking = append(f.ranking, s.name+" "+formatFloat(s.sim))
			}
		}
	}
	return out
}

func formatFloat(x float64) string { return strconvFormat(x) }

func logFigures(t testing.TB, figs []cloneFigures) {
	t.Helper()
	for _, f := range figs {
		s, c := f.sample, f.clone
		t.Logf("%s: fit %s F0Hz %.1f rate %.3f formant %.3f range %d in %v", f.speaker.name, f.fit.EngineVoice, f.fit.F0Hz, f.fit.Rate, f.fit.Formant, f.fit.PitchRange, f.fitTime.Round(time.Millisecond))
		t.Logf("  F0 %.0f → %.0f Hz (%+.1f %%)  rate %.2f → %.2f syl/s (%+.1f %%)  range %.1f → %.1f st  F1-3 %.0f/%.0f/%.0f → %.0f/%.0f/%.0f Hz  centroid %.0f → %.0f Hz  tilt %.1f → %.1f",
			s.F0Median, c.F0Median, 100*(c.F0Median/s.F0Median-1), s.Rate, c.Rate, 100*(c.Rate/s.Rate-1), s.F0Range, c.F0Range,
			s.Formants[0], s.Formants[1], s.Formants[2], c.Formants[0], c.Formants[1], c.Formants[2], s.Centroid, c.Centroid, s.Tilt, c.Tilt)
		t.Logf("  new clip ranks the speaker #%d (top: %v); clone speech similarity to the sample %.2f", f.rank, f.ranking, f.cloneSimilar)
	}
}

// TestCloneMatchesSyntheticSpeakers is issue 9 §4 "Clone": on speakers made by shifting engine
// speech by known amounts, the clone's speech of new text has the sample's median F0 within 10 %
// and syllable rate within 15 %, and a new clip of the speaker is most similar to the speaker's
// print among every base voice and the other speakers.
func TestCloneMatchesSyntheticSpeakers(t *testing.T) {
	figs := cloneAll(t)
	logFigures(t, figs)
	for _, f := range figs {
		if d := math.Abs(f.clone.F0Median/f.sample.F0Median - 1); d > 0.10 {
			t.Errorf("%s: clone F0 %.0f Hz vs sample %.0f Hz (%.1f %% off)", f.speaker.name, f.clone.F0Median, f.sample.F0Median, 100*d)
		}
		if d := math.Abs(f.clone.Rate/f.sample.Rate - 1); d > 0.15 {
			t.Errorf("%s: clone rate %.2f vs sample %.2f syllables/s (%.1f %% off)", f.speaker.name, f.clone.Rate, f.sample.Rate, 100*d)
		}
		if f.rank != 1 {
			t.Errorf("%s: a new clip ranks the speaker #%d (%v)", f.speaker.name, f.rank, f.ranking)
		}
		if f.fit.Engine != "flite" || f.fit.EngineVoice == "rms" || !slices.Contains([]string{"slt", "awb", "kal16"}, f.fit.EngineVoice) {
			t.Errorf("%s: base %s %s", f.speaker.name, f.fit.Engine, f.fit.EngineVoice)
		}
	}
}

// TestClonerCalibration: the bases are the flite voices measured to follow F0Hz and Rate (not
// rms, whose pitch is fixed, nor kal16, whose measured rate does not follow Rate); a fit is cached;
// a female print gets slt; a print without pitch is refused.
func TestClonerCalibration(t *testing.T) {
	cl := cloner()
	bases, err := cl.calibrate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range bases {
		t.Logf("base %-5s %s: F0 %.0f Hz, %.2f syl/s; pitch follows F0Hz^%.2f, rate follows Rate^%.2f",
			b.name, b.gender, b.own.F0Median, b.own.Rate, b.f0B, b.rateB)
		names = append(names, b.name)
	}
	if slices.Contains(names, "rms") || !slices.Contains(names, "slt") || !slices.Contains(names, "awb") {
		t.Errorf("bases %v: want slt and awb, not rms", names)
	}
	if NewCloner(flite(t)).calibration != cl.calibration {
		t.Error("a second cloner of flite calibrates again")
	}
	female := &Print{F0Median: 210, F0P10: 180, F0P90: 250, F0Range: 5.7, Rate: 4, Gender: "female"}
	start := time.Now()
	fit, err := cl.Fit(context.Background(), female)
	if err != nil {
		t.Fatal(err)
	}
	first := time.Since(start)
	start = time.Now()
	again, err := cl.Fit(context.Background(), female)
	if err != nil || again != fit {
		t.Errorf("second fit %+v, %v; want the cached %+v", again, err, fit)
	}
	t.Logf("female 210 Hz, 4 syl/s: %+v in %v (cached: %v)", fit, first.Round(time.Millisecond), time.Since(start))
	if fit.EngineVoice != "slt" || fit.Engine != "flite" || fit.F0Hz < 180 || fit.F0Hz > 240 {
		t.Errorf("female fit %+v", fit)
	}
	for _, p := range []*Print{nil, {Rate: 4}, {F0Median: 120}} {
		if _, err := cl.Fit(context.Background(), p); !errs.Is(err, errs.Invalid) {
			t.Errorf("Fit(%+v) = %v, want invalid", p, err)
		}
	}
}

func BenchmarkAnalyse(b *testing.B) {
	pcm := say(b, flite(b), "awb", engine.Prosody{}, harvard(0, 5))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Analyse(pcm); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(pcm.Seconds()*float64(b.N)/b.Elapsed().Seconds(), "audio-s/s")
}

// BenchmarkFit is one uncached fit with the bases already calibrated (once per process).
func BenchmarkFit(b *testing.B) {
	cl := cloner()
	if _, err := cl.calibrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	p, err := Analyse(ffmpegFilter(b, say(b, flite(b), "awb", engine.Prosody{}, sampleText()), syntheticSpeakers[0].filter))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		cl.mu.Lock()
		clear(cl.fits)
		cl.mu.Unlock()
		if _, err := cl.Fit(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClone measures the clone floors of issue 9 §4 on every synthetic speaker (make bench,
// group clone): F0 and rate errors of the clone's speech, the rank of the speaker's print for a
// new clip, the fit's time. The figures are computed once; the sub-benchmarks report them.
func BenchmarkClone(b *testing.B) {
	figs := cloneAll(b)
	logFigures(b, figs)
	for _, f := range figs {
		b.Run(f.speaker.id, func(b *testing.B) { // reports only: no work per iteration
			b.ReportMetric(100*math.Abs(f.clone.F0Median/f.sample.F0Median-1), "f0-err-%")
			b.ReportMetric(100*math.Abs(f.clone.Rate/f.sample.Rate-1), "rate-err-%")
			b.ReportMetric(float64(f.rank), "rank")
			b.ReportMetric(f.cloneSimilar, "clone-similarity")
			b.ReportMetric(float64(f.fitTime.Milliseconds()), "fit-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}
