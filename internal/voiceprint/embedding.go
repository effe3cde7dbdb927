package voiceprint

import (
	"math"

	"timbre/internal/listen"
)

// The speaker embedding: the mean and standard deviation of MFCCs c1…c19 over voiced frames
// (the spectral envelope: vocal tract and voice quality; c0, loudness, is left out), then the
// log median pitch and log formants F1–F3. Each part is divided by a fixed typical spread so that
// every dimension weighs about the same and embeddings of different recordings compare.
const (
	embCeps      = 19
	embCepScale  = 4.0  // MFCC means differ between voices by a few units
	embSDScale   = 4.0  // spreads by one or two, but noise moves them most: half weight
	embPitchUnit = 0.25 // octaves: a quarter octave of median pitch weighs one unit…
	embFmtUnit   = 0.15 // …as does 15 % (in octaves) of formant position
	embPitchDims = 4    // the pitch counts like this many dimensions
)

// embeddingLen is the length of this version's embeddings.
const embeddingLen = 2*embCeps + embPitchDims + 3

func embedding(spec [][]float64, voiced []int, p *Print) []float64 {
	ceps := listen.MFCC(spec)
	mean, sd := make([]float64, embCeps), make([]float64, embCeps)
	for _, f := range voiced {
		for j := range mean {
			mean[j] += ceps[f][j+1]
		}
	}
	n := float64(len(voiced))
	for j := range mean {
		mean[j] /= n
	}
	for _, f := range voiced {
		for j := range sd {
			d := ceps[f][j+1] - mean[j]
			sd[j] += d * d
		}
	}
	out := make([]float64, 0, embeddingLen)
	for j := range mean {
		out = append(out, mean[j]/embCepScale)
	}
	for j := range sd {
		out = append(out, math.Sqrt(sd[j]/n)/embSDScale)
	}
	lf0 := math.Log2(p.F0Median/150) / embPitchUnit
	for range embPitchDims {
		out = append(out, lf0)
	}
	refs := [3]float64{500, 1500, 2500}
	for i, f := range p.Formants {
		v := 0.0
		if f > 0 {
			v = math.Log2(f/refs[i]) / embFmtUnit
		}
		out = append(out, v)
	}
	return out
}

// Similarity says how alike two speaker embeddings are, from 0 (nothing alike) to 1 (the same):
// exp(−d²/2) of their root-mean-square distance d in units of the typical spread between
// voices. Embeddings of different lengths (another version of the analysis) are 0 alike.
func Similarity(a, b []float64) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	d2 := s / float64(len(a))
	return math.Exp(-d2 / (2 * simScale * simScale))
}

// simScale is the RMS distance at which similarity falls to e^(−½) ≈ 0.61.
const simScale = 0.8
