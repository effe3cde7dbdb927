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
	p := &fftPlan{n: n, twiddle: make([]complex128, n/2), rev: make([]int, n)}
	for k := range p.twiddle {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		p.twiddle[k] = complex(c, s)
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
	for size := 2; size <= n; size <<= 1 {
		half, step := size/2, n/size
		for start := 0; start < n; start += size {
			for k := range half {
				w := p.twiddle[k*step]
				if inverse {
					w = cmplx.Conj(w)
				}
				a, b := x[start+k], x[start+k+half]*w
				x[start+k], x[start+k+half] = a+b, a-b
			}
		}
	}
}
