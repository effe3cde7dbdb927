package tts

import (
	"math/rand"
	"slices"
	"testing"
)

// boostReference is the speaker boost as first written, one sample at a time.
func boostReference(samples []int16) {
	peak := 0
	for _, s := range samples {
		a := int(s)
		if a < 0 {
			a = -a
		}
		peak = max(peak, a)
	}
	if peak < 64 {
		return
	}
	gain := int64(1913350000) / int64(peak)
	gain = min(gain, 4<<16)
	for i, s := range samples {
		v := (int64(s) * gain) >> 16
		samples[i] = int16(max(-32768, min(32767, v)))
	}
}

// boost gives the reference's samples, with and without the vector loops, for every length
// around the vector width and for loud, quiet, silent and full-scale audio.
func TestBoostMatchesReference(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	defer func(v bool) { useAVX2 = v }(useAVX2)
	for _, vector := range []bool{false, useAVX2} {
		useAVX2 = vector
		for it := range 20000 {
			n := it % 70
			if it%100 == 0 {
				n = 80000 + r.Intn(40)
			}
			amp := []int{1, 63, 64, 65, 100, 3000, 8000, 16384, 29195, 29196, 32767, 32768}[r.Intn(12)]
			in := make([]int16, n)
			for i := range in {
				in[i] = int16(max(-32768, min(32767, r.Intn(2*amp+1)-amp)))
			}
			if n > 0 && r.Intn(8) == 0 {
				in[r.Intn(n)] = -32768
			}
			if n > 0 && r.Intn(8) == 0 {
				in[r.Intn(n)] = 32767
			}
			want, got := slices.Clone(in), slices.Clone(in)
			boostReference(want)
			boost(got)
			if !slices.Equal(got, want) {
				t.Fatalf("vector %v, %d samples of amplitude %d: boost differs from the reference", vector, n, amp)
			}
		}
	}
}

// The vector gain is exact for every sample value and every gain boost can use.
func TestApplyGainAllValues(t *testing.T) {
	if !useAVX2 {
		t.Skip("no vector loops on this machine")
	}
	all := make([]int16, 65536)
	gains := []int64{0, 1, 32767, 32768, 32769, 65535, 65536, 65537, 98303, 98304, 131072, 4 << 16}
	r := rand.New(rand.NewSource(2))
	for range 200 {
		gains = append(gains, r.Int63n(4<<16+1))
	}
	for _, gain := range gains {
		for i := range all {
			all[i] = int16(i - 32768)
		}
		// Only samples whose result fits in an int16 occur (|s| ≤ peak ≤ 1913350000 / gain).
		in := all[:0]
		for _, s := range all {
			if v := (int64(s) * gain) >> 16; v >= -32768 && v <= 32767 {
				in = append(in, s)
			}
		}
		in = in[:len(in)&^15]
		want := slices.Clone(in)
		applyGainGo(want, gain)
		applyGain(in, gain)
		if !slices.Equal(in, want) {
			t.Fatalf("gain %d: vector results differ", gain)
		}
	}
}

func BenchmarkBoost(b *testing.B) {
	in := make([]int16, 80000)
	for i := range in {
		in[i] = int16(rand.Intn(20000) - 10000)
	}
	buf := make([]int16, len(in))
	for b.Loop() {
		copy(buf, in)
		boost(buf)
	}
}
