package watermark

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMarkRunMatchesGo: markRun (AVX2 where there is AVX2) gives markRunGo's samples and peak,
// for every run length up to two blocks, with loud samples that clip and the extremes.
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
			gain := float32(r.Float64() * 200)
			if trial%4 == 0 {
				gain = speechBand.strength * float32(r.IntN(32769))
			}
			want := slices.Clone(s)
			wantPeak := markRunGo(want, c, gain)
			got := slices.Clone(s)
			if peak := markRun(got, c, gain); peak != wantPeak || !slices.Equal(got, want) {
				t.Fatalf("n=%d gain=%g: peak %d, samples %v; want %d, %v", n, gain, peak, got, wantPeak, want)
			}
		}
	}
}
