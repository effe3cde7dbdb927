package watermark

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/engine"
)

// speechClip speaks text with espeak-ng (22,050 Hz).
func speechClip(t testing.TB, text string) []int16 {
	t.Helper()
	e, err := engine.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Synthesize(context.Background(), engine.Request{Text: text, Voice: "en-us"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Audio.SampleRate != 22050 {
		t.Fatalf("espeak rate %d", res.Audio.SampleRate)
	}
	return res.Audio.Samples
}

const testText = "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background."

func newTestWatermark(t testing.TB) *Watermark {
	t.Helper()
	wm, err := New(testKey)
	if err != nil {
		t.Fatal(err)
	}
	return wm
}

func TestNewRejectsShortKeysAndRates(t *testing.T) {
	if _, err := New([]byte("short")); err == nil {
		t.Error("a 5-byte key was accepted")
	}
	wm := newTestWatermark(t)
	for _, rate := range []int{0, 7999, 12345, 48001} {
		if _, err := wm.NewEmbedder(rate); err == nil {
			t.Errorf("rate %d accepted", rate)
		}
	}
}

// A stream marked in chunks of any size is the same as the whole marked at once.
func TestChunkedMarkingEqualsWhole(t *testing.T) {
	wm := newTestWatermark(t)
	speech := speechClip(t, testText)
	whole := slices.Clone(speech)
	e, _ := wm.NewEmbedder(22050)
	e.Mark(whole)
	if slices.Equal(whole, speech) {
		t.Fatal("marking changed nothing")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, maxChunk := range []int{1, 7, 160, 5000} {
		chunked := slices.Clone(speech)
		e, _ := wm.NewEmbedder(22050)
		for rest := chunked; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(maxChunk))
			e.Mark(rest[:n])
			rest = rest[n:]
		}
		if !slices.Equal(chunked, whole) {
			t.Errorf("chunks of up to %d samples differ from marking the whole", maxChunk)
		}
	}
}

// Every rate Timbre produces carries the same mark: found at the rate itself and after
// resampling to 16 kHz; the unmarked audio is not.
func TestDetectsAtEveryRate(t *testing.T) {
	wm := newTestWatermark(t)
	speech := speechClip(t, testText)
	for _, rate := range []int{8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000} {
		orig := audio.Resample(speech, 22050, rate)
		marked := slices.Clone(orig)
		e, err := wm.NewEmbedder(rate)
		if err != nil {
			t.Fatal(err)
		}
		e.Mark(marked)
		if snr := snrDB(orig, marked); snr < 30 {
			t.Errorf("%d Hz: mark %.1f dB below the speech, want ≥ 30", rate, snr)
		}
		r := wm.Detect(marked, rate)
		if !r.Detected || r.Probability < 0.99 {
			t.Errorf("%d Hz: marked audio not detected: %+v", rate, r)
		}
		r16 := wm.Detect(audio.Resample(marked, rate, 16000), 16000)
		if !r16.Detected {
			t.Errorf("%d Hz → 16 kHz: marked audio not detected: %+v", rate, r16)
		}
		r0 := wm.Detect(orig, rate)
		if r0.Detected || r0.Probability > 0.1 {
			t.Errorf("%d Hz: unmarked audio detected: %+v", rate, r0)
		}
		if rate == 8000 { // telephone formats: µ-law and A-law at 8 kHz
			for name, roundTrip := range map[string]func([]int16) []int16{"µ-law": ulaw, "A-law": alaw} {
				if r := wm.Detect(roundTrip(marked), rate); !r.Detected {
					t.Errorf("%s: marked audio not detected: %+v", name, r)
				}
			}
		}
		t.Logf("%5d Hz: %.1f dB below the speech; score %.1f, at 16 kHz %.1f, unmarked %.1f", rate, snrDB(orig, marked), r.Score, r16.Score, r0.Score)
	}
}

// Digital silence stays silent, and silent or too short audio is reported as not marked.
func TestSilenceAndShortAudio(t *testing.T) {
	wm := newTestWatermark(t)
	silence := make([]int16, 3*24000)
	e, _ := wm.NewEmbedder(24000)
	e.Mark(silence)
	if slices.ContainsFunc(silence, func(s int16) bool { return s != 0 }) {
		t.Error("marking changed digital silence")
	}
	if r := wm.Detect(silence, 24000); r != (Result{}) {
		t.Errorf("silence: %+v", r)
	}
	speech := speechClip(t, testText)
	e, _ = wm.NewEmbedder(22050)
	e.Mark(speech)
	if r := wm.Detect(speech[:22050/4], 22050); r != (Result{}) {
		t.Errorf("a quarter second: %+v", r)
	}
	if r := wm.Detect(speech, 7000); r != (Result{}) {
		t.Errorf("unsupported rate: %+v", r)
	}
}

// A file spliced from separately marked streams (each with its own carrier offset) and
// unmarked audio is still found, by the windows over long audio.
func TestDetectsInSplicedLongAudio(t *testing.T) {
	wm := newTestWatermark(t)
	speech := speechClip(t, testText)
	unmarked := speechClip(t, "Rice is often served in round bowls. The juice of lemons makes fine punch. "+
		"The box was thrown beside the parked truck. The hogs were fed chopped corn and garbage.")
	marked := slices.Clone(speech)
	e, _ := wm.NewEmbedder(22050)
	e.Mark(marked[:len(marked)/2])
	e2, _ := wm.NewEmbedder(22050)
	e2.Mark(marked[len(marked)/2:]) // a second stream starts its carrier afresh
	long := slices.Concat(unmarked, unmarked, marked[:len(marked)/2], unmarked, marked[len(marked)/2:], unmarked)
	if r := wm.Detect(long, 22050); !r.Detected {
		t.Errorf("spliced audio (%.1f s): %+v", float64(len(long))/22050, r)
	}
	if r := wm.Detect(slices.Concat(unmarked, unmarked, unmarked), 22050); r.Detected {
		t.Errorf("long unmarked audio: %+v", r)
	}
}

func ulaw(s []int16) []int16 { return g711(s, audio.ULaw, audio.ULawDecode) }
func alaw(s []int16) []int16 { return g711(s, audio.ALaw, audio.ALawDecode) }

// g711 encodes and decodes every sample.
func g711(s []int16, enc func(int16) byte, dec func(byte) int16) []int16 {
	out := make([]int16, len(s))
	for i, v := range s {
		out[i] = dec(enc(v))
	}
	return out
}

// Audio delivered at 16 kHz or above carries the wide band's mark, above a 16 kHz speech
// recogniser's last filter (6,800 Hz for pocketsphinx's en-us model): below 6.5 kHz what marking adds is far
// weaker than in the band. Audio delivered narrower carries the speech band's mark, which
// survives resampling to 8 kHz. Audio marked before the wide band existed (the speech band at any
// rate) is still found.
func TestBandFollowsTheDeliveredRate(t *testing.T) {
	wm := newTestWatermark(t)
	speech := speechClip(t, testText)
	wide := slices.Clone(speech)
	e, err := wm.NewEmbedderTo(22050, 44100)
	if err != nil {
		t.Fatal(err)
	}
	e.Mark(wide)
	below, in := markPower(speech, wide, 22050, 0, 6500), markPower(speech, wide, 22050, 7000, 7450)
	t.Logf("wide band: what marking added lies %.1f dB lower below 6.5 kHz than in 7.0–7.45 kHz", 10*math.Log10(in/below))
	if in < 1000*below {
		t.Errorf("wide band: the mark below 6.5 kHz is only %.1f dB under its level in the band, want ≥ 30 dB", 10*math.Log10(in/below))
	}
	if r := wm.Detect(wide, 22050); !r.Detected {
		t.Errorf("wide band at 22,050 Hz not detected: %+v", r)
	}

	narrow := slices.Clone(speech)
	e, err = wm.NewEmbedderTo(22050, 8000)
	if err != nil {
		t.Fatal(err)
	}
	e.Mark(narrow)
	if markPower(speech, narrow, 22050, 2800, 6100) < 1000*markPower(speech, narrow, 22050, 7000, 7450) {
		t.Error("audio delivered at 8 kHz was not marked in the speech band")
	}
	delivered := audio.Resample(narrow, 22050, 8000)
	if r := wm.Detect(delivered, 8000); !r.Detected {
		t.Errorf("marked at 22,050 Hz, delivered at 8 kHz: %+v", r)
	}
	if r := wm.Detect(audio.Resample(delivered, 8000, 16000), 16000); !r.Detected {
		t.Errorf("marked at 22,050 Hz, delivered at 8 kHz, detected at 16 kHz: %+v", r)
	}
	old := slices.Clone(speech) // marked as before the wide band: the speech band at 22,050 Hz
	oldMark := &Embedder{carrier: wm.speech.at(22050, 22050), strength: wm.speech.strength,
		decay: float32(math.Exp(-blockLen / (releaseSec * 22050)))}
	oldMark.Mark(old)
	if r := wm.Detect(old, 22050); !r.Detected {
		t.Errorf("audio marked with the speech band at 22,050 Hz: %+v", r)
	}
	if _, err := wm.NewEmbedderTo(22050, 7999); err == nil {
		t.Error("a delivered rate of 7,999 Hz was accepted")
	}
}

// markPower is the power of marked − orig between lo and hi Hz (Hann-windowed 2,048-point
// spectra).
func markPower(orig, marked []int16, rate int, lo, hi float64) float64 {
	const n = 2048
	x := make([]complex128, n)
	var p float64
	for s := 0; s+n <= len(orig); s += n / 2 {
		for i := range n {
			w := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/n)
			x[i] = complex(w*(float64(marked[s+i])-float64(orig[s+i])), 0)
		}
		fft(x, false)
		for k := 1; k < n/2; k++ {
			if f := float64(k) * float64(rate) / n; f >= lo && f < hi {
				p += real(x[k])*real(x[k]) + imag(x[k])*imag(x[k])
			}
		}
	}
	return p
}
