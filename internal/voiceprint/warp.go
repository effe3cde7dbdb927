package voiceprint

import "math"

// Vocal-tract scale between two speakers, the way vocal tract length normalisation estimates it:
// the mean log-mel spectrum over voiced frames (rebuilt from the embedding's mean MFCCs c1…c19, a
// smooth envelope) of one is stretched along frequency by k until it best matches (Pearson
// correlation over warpLoHz–warpHiHz) the other's. A longer tract (k < 1) moves every resonance
// down by the same factor, which is what flite's Formant parameter does.
const (
	warpLoHz, warpHiHz = 400.0, 5000.0
	melBands           = 40
	melLoHz, melHiHz   = 60.0, 7600.0 // as listen's filter bank
)

func mel(f float64) float64   { return 2595 * math.Log10(1+f/700) }
func melHz(m float64) float64 { return 700 * (math.Pow(10, m/2595) - 1) }

// envelope is the mean log-mel spectrum (up to a constant) an embedding holds, nil for an
// embedding of another version.
func envelope(e []float64) []float64 {
	if len(e) != embeddingLen {
		return nil
	}
	out := make([]float64, melBands)
	for b := range out {
		for j := range embCeps {
			out[b] += e[j] * embCepScale * math.Cos(math.Pi*float64(j+1)*(float64(b)+0.5)/melBands)
		}
	}
	return out
}

// bandHz is the centre frequency of mel band b.
func bandHz(b float64) float64 {
	lo, hi := mel(melLoHz), mel(melHiHz)
	return melHz(lo + (hi-lo)*(b+1)/(melBands+1))
}

// envelopeAt interpolates env at frequency f (Hz).
func envelopeAt(env []float64, f float64) float64 {
	lo, hi := mel(melLoHz), mel(melHiHz)
	x := (mel(f)-lo)/(hi-lo)*(melBands+1) - 1
	x = min(max(x, 0), melBands-1)
	i := min(int(x), melBands-2)
	return env[i] + (x-float64(i))*(env[i+1]-env[i])
}

// tractScale is the factor k by which want's resonances lie above got's (0 when the embeddings
// cannot say): want(f) ≈ got(f/k).
func tractScale(want, got []float64) float64 {
	w, g := envelope(want), envelope(got)
	if w == nil || g == nil {
		return 0
	}
	best, bestR := 0.0, math.Inf(-1)
	for k := 0.70; k <= 1.40001; k += 0.005 {
		var xs, ys []float64
		for b := range melBands {
			f := bandHz(float64(b))
			if f < warpLoHz || f > warpHiHz {
				continue
			}
			xs = append(xs, w[b])
			ys = append(ys, envelopeAt(g, f/k))
		}
		if r := pearson(xs, ys); r > bestR {
			best, bestR = k, r
		}
	}
	return best
}

func pearson(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}
