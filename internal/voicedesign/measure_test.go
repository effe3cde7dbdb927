package voicedesign

import (
	"context"
	"math"
	"slices"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/voiceprint"
	"timbre/internal/watermark"
)

func testService(t *testing.T) *Service {
	t.Helper()
	es, err := engine.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	fl, err := engine.NewFlite()
	if err != nil {
		t.Fatal(err)
	}
	wm, err := watermark.New([]byte("voicedesign-test-watermark-key-01"))
	if err != nil {
		t.Fatal(err)
	}
	return &Service{Engines: map[string]engine.Synthesizer{"espeak": es, "flite": fl}, Watermark: wm}
}

// measured is what a preview's audio measures: median pitch and speaking rate (syllables per
// second) by voiceprint.Analyse (YIN pitch, syllable nuclei), a cross-check of the pitch by
// autocorrelation, and the seconds from the first to the last loud frame for the text.
type measured struct{ f0, rate, acF0, speech float64 }

func measure(t *testing.T, s *Service, p Params, text string) (measured, []int16) {
	t.Helper()
	f, _ := audio.ParseFormat("pcm_16000")
	data, secs, err := s.Render(context.Background(), p, text, DefaultLoudness, f)
	if err != nil {
		t.Fatal(err)
	}
	pcm := audio.PCMSamples(data)
	if d := float64(len(pcm)) / 16000; math.Abs(d-secs) > 0.05 {
		t.Errorf("duration_secs %.2f, audio %.2f s", secs, d)
	}
	vp, err := voiceprint.Analyse(engine.PCM{Samples: pcm, SampleRate: 16000})
	if err != nil {
		t.Fatal(err)
	}
	return measured{f0: vp.F0Median, rate: vp.Rate, acF0: medianF0(pcm, 16000), speech: speechSeconds(pcm, 16000)}, pcm
}

// TestMeasuredDesignFloor is issue 9 §4's floor: "deep elderly male" and "high-pitched young girl"
// previews differ in median F0 by at least 1.5× and the girl speaks faster (by 10 % or more), in every
// pair of previews.
func TestMeasuredDesignFloor(t *testing.T) {
	s := testService(t)
	const text = "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It is easy to tell the depth of a well."
	old := Variations(Design(Parse("deep elderly male"), true), 1, DefaultGuidance, PreviewCount)
	girl := Variations(Design(Parse("high-pitched young girl"), true), 1, DefaultGuidance, PreviewCount)
	var oldM, girlM []measured
	for i := range old {
		m, _ := measure(t, s, old[i], text)
		oldM = append(oldM, m)
		g, _ := measure(t, s, girl[i], text)
		girlM = append(girlM, g)
		t.Logf("preview %d: old man %.0f Hz (autocorrelation %.0f, asked %.0f), %.2f syll/s, %.2f s; girl %.0f Hz (%.0f, asked %.0f), %.2f syll/s, %.2f s", i,
			m.f0, m.acF0, old[i].F0Hz, m.rate, m.speech, g.f0, g.acF0, girl[i].F0Hz, g.rate, g.speech)
	}
	for _, o := range oldM {
		for _, g := range girlM {
			if o.f0 == 0 || g.f0/o.f0 < 1.5 {
				t.Errorf("median F0: girl %.0f Hz vs old man %.0f Hz, ratio %.2f < 1.5", g.f0, o.f0, g.f0/o.f0)
			}
			if g.rate <= o.rate || g.speech*1.1 >= o.speech {
				t.Errorf("pace: the girl %.2f syll/s and %.2f s for the text, the old man %.2f syll/s and %.2f s; she should be faster (≥ 10 %% less time)",
					g.rate, g.speech, o.rate, o.speech)
			}
		}
	}
	// The measured pitch follows what was asked (within 15 %) on flite, which honours F0Hz.
	for i, m := range append(oldM, girlM...) {
		want := append(old, girl...)[i].F0Hz
		if math.Abs(m.f0/want-1) > 0.15 || math.Abs(m.acF0/want-1) > 0.15 {
			t.Errorf("preview %d: measured %.0f Hz (autocorrelation %.0f Hz), asked %.0f Hz", i, m.f0, m.acF0, want)
		}
	}
}

// Previews are watermarked; the loudness field moves their level; the same parameters give the
// same speech (what the stream route relies on): the same length and pitch — flite's clustergen
// voices mix rand() noise into their excitation, so the samples themselves differ slightly.
func TestRenderWatermarkLoudnessRepeatable(t *testing.T) {
	s := testService(t)
	p := Variations(Design(Parse("a calm young American woman"), true), 9, DefaultGuidance, 1)[0]
	text := SampleText(p)
	f, _ := audio.ParseFormat("pcm_16000")
	loud, _, err := s.Render(context.Background(), p, text, 1, f)
	if err != nil {
		t.Fatal(err)
	}
	quiet, _, err := s.Render(context.Background(), p, text, -1, f)
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := s.Render(context.Background(), p, text, 1, f)
	if err != nil {
		t.Fatal(err)
	}
	a, b := audio.PCMSamples(loud), audio.PCMSamples(again)
	if len(a) != len(b) || math.Abs(medianF0(a, 16000)/medianF0(b, 16000)-1) > 0.02 {
		t.Errorf("the same parameters rendered different speech: %d vs %d samples, %.0f vs %.0f Hz", len(a), len(b), medianF0(a, 16000), medianF0(b, 16000))
	}
	lp, qp := peak(audio.PCMSamples(loud)), peak(audio.PCMSamples(quiet))
	if db := 20 * math.Log10(float64(lp)/float64(qp)); db < 15 {
		t.Errorf("loudness 1 vs −1: %.1f dB apart, want ~20", db)
	}
	if r := s.Watermark.Detect(audio.PCMSamples(loud), 16000); !r.Detected {
		t.Errorf("preview audio not watermarked (score %.2f)", r.Score)
	}
	// espeak-ng voices render too (accents flite lacks), with their texture and age variants.
	for _, d := range []string{"a posh British gentleman", "a Scottish grandmother", "a raspy Caribbean man", "a breathy British woman",
		"a little girl from Lancashire", "an old man from Birmingham"} {
		es := Variations(Design(Parse(d), true), 9, DefaultGuidance, 1)[0]
		if _, secs, err := s.Render(context.Background(), es, text, 0.5, f); err != nil || secs < 2 {
			t.Errorf("%q (%s %s): %.1f s, %v", d, es.Engine, es.EngineVoice, secs, err)
		}
	}
}

func peak(x []int16) int {
	m := 1
	for _, v := range x {
		m = max(m, int(v), -int(v))
	}
	return m
}

func rmsDBFS(x []int16) float64 {
	var sum float64
	for _, v := range x {
		sum += float64(v) * float64(v)
	}
	return 20 * math.Log10(math.Sqrt(sum/float64(max(len(x), 1)))/32768+1e-12)
}

func speechSeconds(x []int16, rate int) float64 {
	frame := rate / 50
	first, last := -1, -1
	for i, off := 0, 0; off+frame <= len(x); i, off = i+1, off+frame {
		if rmsDBFS(x[off:off+frame]) > -40 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return float64(last-first+1) / 50
}

// medianF0 estimates the median pitch of the loud frames by normalised autocorrelation (60–500 Hz).
func medianF0(x []int16, rate int) float64 {
	frame := rate * 40 / 1000
	var f0s []float64
	for off := 0; off+frame <= len(x); off += frame / 2 {
		w := x[off : off+frame]
		if rmsDBFS(w) < -36 {
			continue
		}
		best, bestLag := 0.0, 0
		for lag := rate / 500; lag <= rate/60; lag++ {
			var c, e1, e2 float64
			for i := 0; i+lag < frame; i++ {
				a, b := float64(w[i]), float64(w[i+lag])
				c, e1, e2 = c+a*b, e1+a*a, e2+b*b
			}
			if c /= math.Sqrt(e1*e2) + 1; c > best {
				best, bestLag = c, lag
			}
		}
		if best > 0.6 {
			f0s = append(f0s, float64(rate)/float64(bestLag))
		}
	}
	if len(f0s) == 0 {
		return 0
	}
	slices.Sort(f0s)
	return f0s[len(f0s)/2]
}
