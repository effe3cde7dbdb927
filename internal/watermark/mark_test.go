package watermark

import (
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMarkRunMatchesGo: markRun (AVX2 where there is AVX2) gives markRunGo's samples and peak,
// for every run length up to two blocks, with rising and falling ramps, loud samples that clip
// and the extremes.
func TestMarkRunMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 2*blockLen + 1 {
		for trial := range 200 {
			s := make([]int16, n)
			c := make([]float32, n+r.IntN(3))
			for i := range s {
				switch r.IntN(8) {
				case 0:
					s[i] = -32768
				case 1:
					s[i] = 32767
				default:
					s[i] = int16(r.IntN(65536) - 32768)
				}
			}
			for i := range c {
				c[i] = float32(r.NormFloat64())
			}
			from, to := float32(r.Float64()*200), float32(r.Float64()*200)
			if trial%4 == 0 {
				from, to = wideStrength*float32(r.IntN(32769)), wideStrength*float32(r.IntN(32769))
			}
			g := gainRamp{from: from, step: (to - from) / blockLen, k: float32(1 + r.IntN(blockLen))}
			want := slices.Clone(s)
			wantPeak := markRunGo(want, c, g)
			got := slices.Clone(s)
			if peak := markRun(got, c, g); peak != wantPeak || !slices.Equal(got, want) {
				t.Fatalf("n=%d ramp=%+v: peak %d, samples %v; want %d, %v", n, g, peak, got, wantPeak, want)
			}
		}
	}
}

// One complex transform does the work of two real ones (fftRealPair, ifftRealPair): the same
// spectra and the same sequences back as transforming each alone, for an odd count too (nil).
func TestRealPairTransformsMatchSingleOnes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const n = 1024
	a, b := make([]float64, n), make([]float64, n)
	for i := range a {
		a[i], b[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	single := func(x []float64) []complex128 {
		z := make([]complex128, n)
		for i, v := range x {
			z[i] = complex(v, 0)
		}
		fft(z, false)
		return z
	}
	wantA, wantB := single(a), single(b)
	z, specA, specB := make([]complex128, n), make([]complex128, n), make([]complex128, n)
	fftRealPair(a, b, z, specA, specB)
	near := func(what string, got, want complex128) {
		t.Helper()
		if cmplx.Abs(got-want) > 1e-9 {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
	}
	for k := range n {
		near("A", specA[k], wantA[k])
		near("B", specB[k], wantB[k])
	}
	fftRealPair(a, nil, z, specA, specB)
	for k := range n {
		near("A alone", specA[k], wantA[k])
		near("B of nil", specB[k], 0)
	}
	ifftRealPair(wantA, wantB, z)
	for i := range n {
		near("a back", z[i]/n, complex(a[i], b[i]))
	}
	ifftRealPair(wantA, nil, z)
	for i := range n {
		near("a back alone", z[i]/n, complex(a[i], 0))
	}
}
