// Package listentest makes the non-speech sounds the tests of audio events need, at 16 kHz.
package listentest

import (
	"math"
	"math/rand/v2"
)

const rate = 16000

// Melody is seconds of synthetic music: a tune of notes of a scale (0.25–0.5 s each) played
// by a harmonic instrument (five partials, a soft attack and decay) over chords of the
// scale held for a second each, at about -12 dBFS.
func Melody(seconds float64, seed uint64) []int16 {
	r := rand.New(rand.NewPCG(seed, 1))
	scale := []float64{0, 2, 4, 5, 7, 9, 11, 12}
	out := make([]int16, int(seconds*rate))
	for at := 0; at < len(out); {
		f0 := 220 * math.Pow(2, scale[r.IntN(len(scale))]/12)
		n := int((0.25 + 0.25*r.Float64()) * rate)
		for i := 0; i < n && at+i < len(out); i++ {
			t := float64(i) / rate
			env := math.Min(1, t/0.02) * math.Exp(-1.5*t)
			var v float64
			for h := 1.0; h <= 5; h++ {
				v += math.Sin(2*math.Pi*f0*h*t) / h
			}
			out[at+i] = int16(7000 * env * v)
		}
		at += n
	}
	for at := 0; at < len(out); at += rate {
		root := 110 * math.Pow(2, scale[r.IntN(5)]/12)
		for i := 0; i < rate && at+i < len(out); i++ {
			t := float64(i) / rate
			env := math.Min(1, t/0.03) * math.Exp(-0.8*t)
			var v float64
			for _, ratio := range []float64{1, 1.26, 1.5} {
				for h := 1.0; h <= 3; h++ {
					v += math.Sin(2*math.Pi*root*ratio*h*t) / h
				}
			}
			out[at+i] = int16(max(-32000, min(32000, float64(out[at+i])+2500*env*v)))
		}
	}
	return out
}

// Noise is white noise at about -25 dBFS.
func Noise(seconds float64, seed uint64) []int16 {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]int16, int(seconds*rate))
	for i := range out {
		out[i] = int16(r.NormFloat64() * 1800)
	}
	return out
}

// Laughter is synthetic "ha-ha-ha": n breathy voiced bursts (a 260 Hz pulse train through an
// /a/-like formant pair plus breath noise), 120 ms long every 220 ms, fading.
func Laughter(n int, seed uint64) []int16 {
	r := rand.New(rand.NewPCG(seed, 3))
	period := int(0.22 * rate)
	out := make([]int16, n*period+rate/5)
	for b := range n {
		amp := 9000 * math.Pow(0.85, float64(b))
		for i := 0; i < int(0.12*rate); i++ {
			t := float64(i) / rate
			env := math.Sin(math.Pi * t / 0.12)
			var v float64
			for h := 1.0; h <= 12; h++ {
				f := 260 * h
				g := math.Exp(-math.Pow((f-800)/300, 2)) + 0.6*math.Exp(-math.Pow((f-1200)/300, 2)) + 0.05
				v += g * math.Sin(2*math.Pi*f*t)
			}
			v += 0.3 * r.NormFloat64()
			out[b*period+i] = int16(amp * env * v / 2)
		}
	}
	return out
}

// Silence is digital silence.
func Silence(seconds float64) []int16 { return make([]int16, int(seconds*rate)) }
