package sfx

import (
	"math"
	"math/bits"
	"math/cmplx"
)

// rng is splitmix64: small, fast and the same sequence on every platform (seed repeatability).
type rng struct{ s uint64 }

func newRNG(seed uint64) *rng { return &rng{s: seed ^ 0x9e3779b97f4a7c15} }

func (r *rng) u64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// f is uniform in [0, 1).
func (r *rng) f() float64 { return float64(r.u64()>>11) / (1 << 53) }

// w is uniform white noise in [-1, 1).
func (r *rng) w() float64 { return 2*r.f() - 1 }

// rang is uniform in [a, b).
func (r *rng) rang(a, b float64) float64 { return a + (b-a)*r.f() }

// norm is a standard normal variate (Box-Muller).
func (r *rng) norm() float64 {
	u := r.f()
	if u < 1e-300 {
		u = 1e-300
	}
	return math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*r.f())
}

// fork is an independent stream for one layer, so that adding a layer does not shift the others.
func (r *rng) fork() *rng { return newRNG(r.u64()) }

// pink is Paul Kellet's economy pink-noise filter over white noise.
type pink struct{ b0, b1, b2 float64 }

func (p *pink) next(r *rng) float64 {
	w := r.w()
	p.b0 = 0.99765*p.b0 + w*0.0990460
	p.b1 = 0.96300*p.b1 + w*0.2965164
	p.b2 = 0.57000*p.b2 + w*1.0526913
	return (p.b0 + p.b1 + p.b2 + w*0.1848) * 0.2
}

// brown is leaky-integrated white noise (−6 dB/octave).
type brown struct{ y float64 }

func (b *brown) next(r *rng) float64 {
	b.y = 0.995*b.y + 0.06*r.w()
	return b.y
}

// biquad is an RBJ-cookbook second-order filter (transposed direct form II).
type biquad struct {
	b0, b1, b2, a1, a2 float64
	z1, z2             float64
}

type filterKind int

const (
	lowpass filterKind = iota
	highpass
	bandpass // constant 0 dB peak gain
	peak     // boost/cut of gainDB around f
)

func newFilter(k filterKind, sr int, f, q float64) *biquad {
	b := &biquad{}
	b.set(k, sr, f, q, 0)
	return b
}

// set recomputes the coefficients (the state is kept, so filters may sweep).
func (b *biquad) set(k filterKind, sr int, f, q, gainDB float64) {
	f = math.Min(math.Max(f, 10), 0.45*float64(sr))
	if q <= 0 {
		q = 0.707
	}
	w0 := 2 * math.Pi * f / float64(sr)
	sn, cs := math.Sincos(w0)
	alpha := sn / (2 * q)
	var b0, b1, b2, a0, a1, a2 float64
	switch k {
	case lowpass:
		b0, b1, b2 = (1-cs)/2, 1-cs, (1-cs)/2
		a0, a1, a2 = 1+alpha, -2*cs, 1-alpha
	case highpass:
		b0, b1, b2 = (1+cs)/2, -(1 + cs), (1+cs)/2
		a0, a1, a2 = 1+alpha, -2*cs, 1-alpha
	case bandpass:
		b0, b1, b2 = alpha, 0, -alpha
		a0, a1, a2 = 1+alpha, -2*cs, 1-alpha
	case peak:
		A := math.Pow(10, gainDB/40)
		b0, b1, b2 = 1+alpha*A, -2*cs, 1-alpha*A
		a0, a1, a2 = 1+alpha/A, -2*cs, 1-alpha/A
	}
	b.b0, b.b1, b.b2, b.a1, b.a2 = b0/a0, b1/a0, b2/a0, a1/a0, a2/a0
}

func (b *biquad) p(x float64) float64 {
	y := b.b0*x + b.z1
	b.z1 = b.b1*x - b.a1*y + b.z2
	b.z2 = b.b2*x - b.a2*y
	return y
}

// run filters x in place.
func (b *biquad) run(x []float64) []float64 {
	for i, v := range x {
		x[i] = b.p(v)
	}
	return x
}

// onePole is a one-pole low-pass used to smooth control signals.
type onePole struct{ a, y float64 }

func newSmoother(sr int, seconds float64) *onePole {
	return &onePole{a: math.Exp(-1 / (seconds * float64(sr)))}
}

func (o *onePole) p(x float64) float64 {
	o.y = o.a*o.y + (1-o.a)*x
	return o.y
}

// decay is an exponential envelope value at t seconds for time constant tau.
func decay(t, tau float64) float64 { return math.Exp(-t / tau) }

// attackDecay rises linearly over att seconds, then decays with tau.
func attackDecay(t, att, tau float64) float64 {
	if t < 0 {
		return 0
	}
	if t < att {
		return t / att
	}
	return math.Exp(-(t - att) / tau)
}

// addAt mixes src into dst at offset (clipped to dst) with gain.
func addAt(dst, src []float64, off int, gain float64) {
	for i, v := range src {
		j := off + i
		if j < 0 {
			continue
		}
		if j >= len(dst) {
			return
		}
		dst[j] += gain * v
	}
}

func scale(x []float64, g float64) []float64 {
	for i := range x {
		x[i] *= g
	}
	return x
}

func peakOf(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

func rmsOf(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s / float64(len(x)))
}

// normalizeRMS scales x to rms (a layer's loudness is then its recipe gain, not its synthesis).
func normalizeRMS(x []float64, rms float64) []float64 {
	if r := rmsOf(x); r > 1e-12 {
		scale(x, rms/r)
	}
	return x
}

// fft transforms x in place (iterative radix-2, len a power of two); inverse is unscaled.
func fft(x []complex128, inverse bool) {
	n := len(x)
	shift := 64 - bits.Len(uint(n-1))
	for i := range x {
		j := int(bits.Reverse64(uint64(i)) >> shift)
		if i < j {
			x[i], x[j] = x[j], x[i]
		}
	}
	sign := -1.0
	if inverse {
		sign = 1
	}
	for size := 2; size <= n; size <<= 1 {
		half := size / 2
		s, c := math.Sincos(sign * 2 * math.Pi / float64(size))
		step := complex(c, s)
		for start := 0; start < n; start += size {
			w := complex(1, 0)
			for k := 0; k < half; k++ {
				a, b := x[start+k], x[start+k+half]*w
				x[start+k], x[start+k+half] = a+b, a-b
				w *= step
			}
		}
	}
}

// convolve is the linear convolution of x and h by FFT, truncated to len(x)+len(h)-1.
func convolve(x, h []float64) []float64 {
	m := len(x) + len(h) - 1
	n := 1
	for n < m {
		n <<= 1
	}
	// Both real signals ride in one complex FFT: X = x + i·h.
	z := make([]complex128, n)
	for i, v := range x {
		z[i] = complex(v, 0)
	}
	for i, v := range h {
		z[i] += complex(0, v)
	}
	fft(z, false)
	y := make([]complex128, n)
	for k := 0; k < n; k++ {
		zk, zn := z[k], cmplx.Conj(z[(n-k)%n])
		xk := (zk + zn) / 2
		hk := (zk - zn) / complex(0, 2)
		y[k] = xk * hk
	}
	fft(y, true)
	out := make([]float64, m)
	for i := range out {
		out[i] = real(y[i]) / float64(n)
	}
	return out
}

// impulseResponse is a generated room: exponentially decaying noise (rt60 seconds to −60 dB),
// darkened over time (air absorbs highs faster), with a few early reflections.
func impulseResponse(r *rng, sr int, rt60, bright float64) []float64 {
	n := int(rt60 * float64(sr))
	ir := make([]float64, n)
	lp := newFilter(lowpass, sr, 9000*bright, 0.6)
	for i := range ir {
		t := float64(i) / float64(sr)
		if i%64 == 0 {
			lp.set(lowpass, sr, (9000*math.Exp(-t/(rt60*0.5))+500)*bright, 0.6, 0)
		}
		ir[i] = lp.p(r.w()) * math.Exp(-6.9*t/rt60)
	}
	for k := 0; k < 6; k++ {
		d := int(r.rang(0.004, 0.03) * float64(sr))
		if d < n {
			ir[d] += r.rang(0.3, 0.7) * float64(1-2*(k%2))
		}
	}
	e := 0.0
	for _, v := range ir {
		e += v * v
	}
	return scale(ir, 1/math.Sqrt(e+1e-12))
}

// osc is a phase accumulator; frequencies may change per sample.
type osc struct{ ph float64 }

func (o *osc) sin(f float64, sr int) float64 {
	o.ph += f / float64(sr)
	o.ph -= math.Floor(o.ph)
	return math.Sin(2 * math.Pi * o.ph)
}

func (o *osc) saw(f float64, sr int) float64 {
	o.ph += f / float64(sr)
	o.ph -= math.Floor(o.ph)
	return 2*o.ph - 1
}

func (o *osc) square(f float64, sr int) float64 {
	o.ph += f / float64(sr)
	o.ph -= math.Floor(o.ph)
	if o.ph < 0.5 {
		return 1
	}
	return -1
}

// pulse is a glottal-like pulse train (a narrow raised cosine once per period): the source of
// the vocal sounds.
func (o *osc) pulse(f float64, sr int) float64 {
	o.ph += f / float64(sr)
	o.ph -= math.Floor(o.ph)
	if o.ph < 0.35 {
		return 0.5 - 0.5*math.Cos(2*math.Pi*o.ph/0.35)
	}
	return 0
}
