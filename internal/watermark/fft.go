package watermark

import (
	"math"
	"math/bits"
	"math/cmplx"
	"sync"
)

// fftPlan holds the twiddle factors and bit-reversal permutation of one power-of-two size.
type fftPlan struct {
	n       int
	twiddle []complex128 // e^{-2πik/n}, k < n/2
	inverse []complex128 // their conjugates, for the inverse transform
	rev     []int
}

var fftPlans sync.Map // size → *fftPlan

func planFor(n int) *fftPlan {
	if p, ok := fftPlans.Load(n); ok {
		return p.(*fftPlan)
	}
	if n < 2 || n&(n-1) != 0 {
		panic("watermark: FFT size must be a power of two")
	}
	p := &fftPlan{n: n, twiddle: make([]complex128, n/2), inverse: make([]complex128, n/2), rev: make([]int, n)}
	for k := range p.twiddle {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		p.twiddle[k], p.inverse[k] = complex(c, s), complex(c, -s)
	}
	shift := 64 - bits.Len(uint(n-1))
	for i := range p.rev {
		p.rev[i] = int(bits.Reverse64(uint64(i)) >> shift)
	}
	got, _ := fftPlans.LoadOrStore(n, p)
	return got.(*fftPlan)
}

// fft transforms x in place (iterative radix-2). inverse computes the unscaled inverse
// transform: divide by len(x) to undo a forward transform.
func fft(x []complex128, inverse bool) {
	p := planFor(len(x))
	for i, j := range p.rev {
		if i < j {
			x[i], x[j] = x[j], x[i]
		}
	}
	n := len(x)
	twiddle := p.twiddle
	if inverse {
		twiddle = p.inverse
	}
	for i := 0; i+1 < n; i += 2 { // the first stage's twiddle is 1
		a, b := x[i], x[i+1]
		x[i], x[i+1] = a+b, a-b
	}
	for size := 4; size <= n; size <<= 1 {
		half, step := size/2, n/size
		for start := 0; start < n; start += size {
			lo, hi := x[start:start+half], x[start+half:start+size]
			for k := range lo {
				a, b := lo[k], hi[k]*twiddle[k*step]
				lo[k], hi[k] = a+b, a-b
			}
		}
	}
}

// fftRealPair transforms two real sequences of one power-of-two length with one complex FFT:
// packed as a + ib, the spectra separate by symmetry, A[k] = (Z[k] + conj(Z[n-k]))/2 and
// B[k] = (Z[k] − conj(Z[n-k]))/2i. z is the work buffer (len(a)); A and B receive the spectra.
// b may be nil (a zero sequence).
func fftRealPair(a, b []float64, z, specA, specB []complex128) {
	for i := range z {
		im := 0.0
		if b != nil {
			im = b[i]
		}
		z[i] = complex(a[i], im)
	}
	fft(z, false)
	n := len(z)
	for k := range n {
		zk, zc := z[k], cmplx.Conj(z[(n-k)&(n-1)])
		s, d := zk+zc, zk-zc
		specA[k] = complex(0.5*real(s), 0.5*imag(s))
		specB[k] = complex(0.5*imag(d), -0.5*real(d)) // d / 2i (a complex division would cost more than the FFT's butterflies)
	}
}

// ifftRealPair inverts two Hermitian spectra (the spectra of real sequences) with one complex
// inverse FFT of A + iB: the real part is a, the imaginary part b (unscaled, as fft). z receives
// a + ib; specB may be nil.
func ifftRealPair(specA, specB, z []complex128) {
	for k := range z {
		v := specA[k]
		if specB != nil {
			v += complex(-imag(specB[k]), real(specB[k])) // i·B[k]
		}
		z[k] = v
	}
	fft(z, true)
}
