package voiceprint

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"timbre/internal/engine"
	"timbre/internal/errs"
)

// TestAnalyseFlite measures flite's voices and checks the figures against what the engine is
// known to do: slt is a woman (mean F0 ≈ 165 Hz), awb, rms and kal16 are men, and a pitch shift
// by real ffmpeg moves the measured median F0 by its ratio.
func TestAnalyseFlite(t *testing.T) {
	fl := flite(t)
	prints := map[string]*Print{}
	for _, v := range []string{"slt", "awb", "rms", "kal16"} {
		p, err := Analyse(say(t, fl, v, engine.Prosody{}, harvard(0, 6)))
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		logPrint(t, v, p)
		prints[v] = p
		if p.SpeechSeconds < 8 || p.Rate < 1.5 || p.Rate > 6 {
			t.Errorf("%s: %.1f s of speech at %.2f syllables/s: implausible", v, p.SpeechSeconds, p.Rate)
		}
		if p.Formants[0] < 250 || p.Formants[0] > 800 || p.Formants[1] < 1100 || p.Formants[1] > 2300 || p.Formants[2] < 2200 || p.Formants[2] > 3500 {
			t.Errorf("%s: formants %v outside the ranges of adult speech", v, p.Formants)
		}
		if len(p.Embedding) != embeddingLen {
			t.Errorf("%s: embedding of %d values, want %d", v, len(p.Embedding), embeddingLen)
		}
		if p.F0P10 > p.F0Median || p.F0Median > p.F0P90 || p.F0Range <= 0 {
			t.Errorf("%s: pitch statistics out of order: %+v", v, p)
		}
	}
	if p := prints["slt"]; p.Gender != "female" || p.F0Median < 150 || p.F0Median > 185 {
		t.Errorf("slt: %s at %.0f Hz, want female near 165 Hz", p.Gender, p.F0Median)
	}
	for _, v := range []string{"awb", "rms", "kal16"} {
		if p := prints[v]; p.Gender != "male" || p.F0Median > 140 {
			t.Errorf("%s: %s at %.0f Hz, want male below 140 Hz", v, p.Gender, p.F0Median)
		}
	}
	// flite follows F0Hz (slt, awb, kal16): asking 40 % higher measures about 40 % higher.
	for _, v := range []string{"slt", "awb", "kal16"} {
		want := prints[v].F0Median * 1.4
		p, err := Analyse(say(t, fl, v, engine.Prosody{F0Hz: want, Rate: 1, Pitch: 50, PitchRange: 50}, harvard(0, 6)))
		if err != nil {
			t.Fatal(err)
		}
		if r := p.F0Median / want; r < 0.9 || r > 1.1 {
			t.Errorf("%s at F0Hz %.0f: median %.0f Hz", v, want, p.F0Median)
		}
	}
	// A known pitch shift by real ffmpeg: +5 semitones (×1.335).
	shifted, err := Analyse(ffmpegFilter(t, say(t, fl, "awb", engine.Prosody{}, harvard(0, 6)), "rubberband=pitch=1.3348"))
	if err != nil {
		t.Fatal(err)
	}
	logPrint(t, "awb +5 st", shifted)
	if r := shifted.F0Median / prints["awb"].F0Median; math.Abs(r-1.3348) > 0.05 {
		t.Errorf("awb shifted by ×1.335 measures ×%.3f", r)
	}
	// Pitch and rate hold in white noise 20 dB below the speech (the embedding does not: samples
	// with noise are what remove_background_noise is for).
	for _, v := range []string{"slt", "awb"} {
		noisy, err := Analyse(withNoise(say(t, fl, v, engine.Prosody{}, harvard(0, 6)), 20))
		if err != nil {
			t.Fatal(err)
		}
		logPrint(t, v+" +noise", noisy)
		if math.Abs(noisy.F0Median/prints[v].F0Median-1) > 0.03 || math.Abs(noisy.Rate/prints[v].Rate-1) > 0.1 {
			t.Errorf("%s in noise: F0 %.0f (clean %.0f), rate %.2f (clean %.2f)", v, noisy.F0Median, prints[v].F0Median, noisy.Rate, prints[v].Rate)
		}
	}
	// The print is what the store keeps: it survives JSON.
	b, _ := json.Marshal(prints["slt"])
	var back Print
	if err := json.Unmarshal(b, &back); err != nil || back.F0Median != prints["slt"].F0Median || len(back.Embedding) != embeddingLen {
		t.Errorf("JSON round trip: %v %+v", err, back)
	}
}

// TestAnalyseRejects: silence, noise and a 50 ms clip are not a speaker.
func TestAnalyseRejects(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]int16, 3*16000)
	for i := range noise {
		noise[i] = int16(rng.NormFloat64() * 3000)
	}
	tone := make([]int16, 3*16000)
	for i := range tone {
		tone[i] = int16(8000 * math.Sin(2*math.Pi*200*float64(i)/16000))
	}
	fl := flite(t)
	speech := say(t, fl, "slt", engine.Prosody{}, harvard(0, 1))
	short := engine.PCM{Samples: speech.Samples[speech.SampleRate/2 : speech.SampleRate/2+speech.SampleRate/20], SampleRate: speech.SampleRate}
	for _, c := range []struct {
		name string
		pcm  engine.PCM
		code string
	}{
		{"silence", engine.PCM{Samples: make([]int16, 5*16000), SampleRate: 16000}, CodeNoSpeech},
		{"white noise", engine.PCM{Samples: noise, SampleRate: 16000}, CodeNoSpeech},
		{"a steady 200 Hz tone", engine.PCM{Samples: tone, SampleRate: 16000}, CodeNoSpeech},
		{"50 ms of speech", short, CodeTooLittleSpeech},
		{"no samples", engine.PCM{}, CodeTooLittleSpeech},
	} {
		p, err := Analyse(c.pcm)
		var e *errs.Error
		if !errs.Is(err, errs.Invalid) || !asErr(err, &e) || e.Code != c.code {
			t.Errorf("%s: got %+v, %v; want an invalid %s error", c.name, p, err, c.code)
			continue
		}
		t.Logf("%s: %v", c.name, err)
	}
}

func asErr(err error, e **errs.Error) bool {
	x, ok := err.(*errs.Error)
	*e = x
	return ok
}

func logPrint(t testing.TB, name string, p *Print) {
	t.Helper()
	t.Logf("%-10s %5.1f s  F0 %4.0f Hz (p10 %4.0f, p90 %4.0f, %.1f st)  %.2f syl/s  F1-3 %4.0f %4.0f %4.0f Hz  tilt %5.1f dB/oct  centroid %4.0f Hz  %s",
		name, p.SpeechSeconds, p.F0Median, p.F0P10, p.F0P90, p.F0Range, p.Rate, p.Formants[0], p.Formants[1], p.Formants[2], p.Tilt, p.Centroid, p.Gender)
}

// TestAnalyseLongRecording: a recording longer than a chunk is analysed in chunks and merged,
// with the figures of a short one (here the same speech five times over, with pauses).
func TestAnalyseLongRecording(t *testing.T) {
	one := say(t, flite(t), "awb", engine.Prosody{}, harvard(0, 8))
	short, err := Analyse(one)
	if err != nil {
		t.Fatal(err)
	}
	long := engine.PCM{SampleRate: one.SampleRate}
	for range 5 {
		long.Samples = append(long.Samples, one.Samples...)
		long.Samples = append(long.Samples, make([]int16, 2*one.SampleRate)...)
	}
	p, err := Analyse(long)
	if err != nil {
		t.Fatal(err)
	}
	logPrint(t, "short", short)
	logPrint(t, "long", p)
	sim := Similarity(short.Embedding, p.Embedding)
	t.Logf("%.0f s of audio: similarity to the short print %.3f", long.Seconds(), sim)
	if math.Abs(p.SpeechSeconds/short.SpeechSeconds-5) > 0.25 || math.Abs(p.F0Median/short.F0Median-1) > 0.03 ||
		math.Abs(p.Rate/short.Rate-1) > 0.1 || sim < 0.9 {
		t.Errorf("long recording analysed as %+v", p)
	}
}
