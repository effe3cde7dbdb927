package vec

import (
	"math/rand/v2"
	"testing"
)

// Dot gives the same sum with and without AVX2 (dotLanes), for every length up to 70 and at
// every offset into x, and that sum is Σ w[k]·x[k] within float32 rounding.
func TestDotMatchesLanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for n := range 71 {
		w, x := make([]float32, n), make([]float32, n+3)
		for i := range w {
			w[i] = float32(rng.NormFloat64())
		}
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 10000)
		}
		for off := range 3 {
			got, want := Dot(w, x[off:]), dotLanes(w, x[off:])
			if got != want {
				t.Fatalf("n=%d off=%d: Dot %v, dotLanes %v", n, off, got, want)
			}
			var exact float64
			for k := range w {
				exact += float64(w[k]) * float64(x[off+k])
			}
			if d := float64(got) - exact; d > 0.05 || d < -0.05 {
				t.Fatalf("n=%d off=%d: %v, exact %v", n, off, got, exact)
			}
		}
	}
}
