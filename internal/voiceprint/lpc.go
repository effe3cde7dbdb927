package voiceprint

import (
	"math"
	"math/cmplx"
	"slices"
)

// Formants by linear prediction, as Praat and most phoneticians do it: the signal is resampled
// to twice the highest formant sought (10 kHz: formants up to 5 kHz), each 25 ms voiced frame is
// pre-emphasised and Hamming-windowed, an all-pole model of order 2 + kHz (12) is fitted by the
// autocorrelation method, and the model's complex roots are its resonances: frequency from the
// angle, bandwidth from the radius. Narrow resonances (< lpcMaxBandwidth) above lpcMinFormant are
// formants, lowest first — except a pole near the pitch itself (below lpcAboveF0 × F0), which
// models the glottal source's first harmonic in high voices rather than the vocal tract.
const (
	lpcRate         = 10000
	lpcOrder        = 12
	lpcWin          = lpcRate / 40 // 25 ms
	lpcPreEmphasis  = 0.97
	lpcMinFormant   = 200.0
	lpcMaxBandwidth = 300.0
	lpcAboveF0      = 1.3
)

// frameFormants is the first three formants (Hz) of the lpcWin samples around centre in x
// (lpcRate audio) of a frame with pitch f0, ok false when the frame does not show three.
func frameFormants(x []float64, centre int, f0 float64) (f [3]float64, ok bool) {
	from := centre - lpcWin/2
	if from < 1 || from+lpcWin > len(x) {
		return f, false
	}
	w := make([]float64, lpcWin)
	for i := range w {
		ham := 0.54 - 0.46*math.Cos(2*math.Pi*float64(i)/float64(lpcWin-1))
		w[i] = (x[from+i] - lpcPreEmphasis*x[from+i-1]) * ham
	}
	a := lpc(w, lpcOrder)
	if a == nil {
		return f, false
	}
	var found []float64
	for _, r := range polyRoots(a) {
		if imag(r) <= 0 {
			continue
		}
		hz := cmplx.Phase(r) * lpcRate / (2 * math.Pi)
		bw := -math.Log(cmplx.Abs(r)) * lpcRate / math.Pi
		if hz >= max(lpcMinFormant, lpcAboveF0*f0) && hz < lpcRate/2-100 && bw < lpcMaxBandwidth {
			found = append(found, hz)
		}
	}
	if len(found) < 3 {
		return f, false
	}
	slices.Sort(found)
	copy(f[:], found)
	return f, true
}

// lpc fits the prediction polynomial 1 + a1 z⁻¹ + … + ap z⁻ᵖ to x (Levinson–Durbin on its
// autocorrelation); nil for a silent frame.
func lpc(x []float64, p int) []float64 {
	r := make([]float64, p+1)
	for k := range r {
		for i := k; i < len(x); i++ {
			r[k] += x[i] * x[i-k]
		}
	}
	if r[0] <= 1e-12 {
		return nil
	}
	r[0] *= 1 + 1e-9 // a little white noise keeps the recursion stable
	a := make([]float64, p+1)
	a[0] = 1
	e := r[0]
	tmp := make([]float64, p+1)
	for i := 1; i <= p; i++ {
		acc := r[i]
		for j := 1; j < i; j++ {
			acc += a[j] * r[i-j]
		}
		k := -acc / e
		copy(tmp, a)
		for j := 1; j < i; j++ {
			a[j] = tmp[j] + k*tmp[i-j]
		}
		a[i] = k
		e *= 1 - k*k
		if e <= 0 {
			return nil
		}
	}
	return a
}

// polyRoots finds the roots of the monic polynomial z^p + a1 z^(p−1) + … + ap (a[0] = 1) by the
// Aberth–Ehrlich iteration, which converges for the well-separated roots of speech LPC models.
func polyRoots(a []float64) []complex128 {
	p := len(a) - 1
	eval := func(z complex128) (v, d complex128) {
		v = complex(a[0], 0)
		for _, c := range a[1:] {
			d = d*z + v
			v = v*z + complex(c, 0)
		}
		return v, d
	}
	z := make([]complex128, p)
	for i := range z {
		// Start on a circle inside the unit circle, off the real axis.
		z[i] = cmplx.Rect(0.9, 2*math.Pi*(float64(i)+0.25)/float64(p))
	}
	for range 100 {
		moved := 0.0
		for i := range z {
			v, d := eval(z[i])
			if v == 0 {
				continue
			}
			ratio := v / d
			var s complex128
			for j := range z {
				if j != i {
					s += 1 / (z[i] - z[j])
				}
			}
			step := ratio / (1 - ratio*s)
			z[i] -= step
			moved = max(moved, cmplx.Abs(step))
		}
		if moved < 1e-10 {
			break
		}
	}
	return z
}
