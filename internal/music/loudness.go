package music

import "math"

// Loudness is the integrated loudness of mono samples (full scale ±1) in LUFS, per ITU-R
// BS.1770-4: K-weighting, 400 ms blocks with 75 % overlap, the absolute gate at −70 LUFS and the
// relative gate 10 LU below. Silence is −Inf.
func Loudness(x []float64, rate int) float64 {
	y := kWeight(x, float64(rate))
	block, hop := int(0.4*float64(rate)), int(0.1*float64(rate))
	var ms []float64
	for s := 0; s+block <= len(y); s += hop {
		sum := 0.0
		for _, v := range y[s : s+block] {
			sum += v * v
		}
		ms = append(ms, sum/float64(block))
	}
	if len(ms) == 0 && len(y) > 0 {
		sum := 0.0
		for _, v := range y {
			sum += v * v
		}
		ms = append(ms, sum/float64(len(y)))
	}
	lufs := func(m float64) float64 { return -0.691 + 10*math.Log10(m) }
	gated := func(thr float64) (float64, int) {
		sum, n := 0.0, 0
		for _, m := range ms {
			if lufs(m) > thr {
				sum += m
				n++
			}
		}
		return sum, n
	}
	sum, n := gated(-70)
	if n == 0 {
		return math.Inf(-1)
	}
	sum, n = gated(lufs(sum/float64(n)) - 10)
	if n == 0 {
		return math.Inf(-1)
	}
	return lufs(sum / float64(n))
}

// LoudnessPCM is Loudness of 16-bit samples.
func LoudnessPCM(s []int16, rate int) float64 {
	x := make([]float64, len(s))
	for i, v := range s {
		x[i] = float64(v) / 32768
	}
	return Loudness(x, rate)
}

type biquad struct{ b0, b1, b2, a1, a2, z1, z2 float64 }

func (f *biquad) run(x float64) float64 {
	y := f.b0*x + f.z1
	f.z1 = f.b1*x - f.a1*y + f.z2
	f.z2 = f.b2*x - f.a2*y
	return y
}

// kWeight applies BS.1770's two-stage K filter (high shelf, then high pass) designed for rate.
func kWeight(x []float64, rate float64) []float64 {
	// stage 1: high shelf, +4 dB above ~1.7 kHz
	g, q, fc := 3.99984385397, 0.7071752369554193, 1681.9744509555319
	a := math.Pow(10, g/40)
	w := 2 * math.Pi * fc / rate
	alpha := math.Sin(w) / (2 * q)
	c, sa := math.Cos(w), 2*math.Sqrt(a)*alpha
	a0 := (a + 1) - (a-1)*c + sa
	shelf := biquad{b0: a * ((a + 1) + (a-1)*c + sa) / a0, b1: -2 * a * ((a - 1) + (a+1)*c) / a0, b2: a * ((a + 1) + (a-1)*c - sa) / a0,
		a1: 2 * ((a - 1) - (a+1)*c) / a0, a2: ((a + 1) - (a-1)*c - sa) / a0}
	// stage 2: high pass at ~38 Hz
	q, fc = 0.5003270373253953, 38.13547087613982
	w = 2 * math.Pi * fc / rate
	alpha, c = math.Sin(w)/(2*q), math.Cos(w)
	a0 = 1 + alpha
	hp := biquad{b0: (1 + c) / 2 / a0, b1: -(1 + c) / a0, b2: (1 + c) / 2 / a0, a1: -2 * c / a0, a2: (1 - alpha) / a0}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = hp.run(shelf.run(v))
	}
	return y
}
