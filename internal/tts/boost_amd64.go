package tts

import "golang.org/x/sys/cpu"

var useAVX2 = cpu.X86.HasAVX2

// sampleRange is sampleRangeGo, 16 samples a step with AVX2.
func sampleRange(samples []int16) (lo, hi int16) {
	n := len(samples) &^ 15
	if !useAVX2 || n == 0 {
		return sampleRangeGo(samples)
	}
	lo, hi = sampleRangeAVX2(samples[:n])
	tlo, thi := sampleRangeGo(samples[n:])
	return min(lo, tlo), max(hi, thi)
}

// applyGain is applyGainGo, 16 samples a step with AVX2. It splits the gain (at most 4 × 65536)
// so that 16-bit multiplies give the exact result: with gain = h × 65536 + l,
// (s × gain) >> 16 = s × h + ((s × l) >> 16). VPMULHW takes l as signed: for l ≥ 32768 it
// multiplies by l − 65536, whose high half is s less, so h goes up by one. s × h may wrap in 16
// bits, but the sum is exact modulo 2^16 and the true result fits in an int16.
func applyGain(samples []int16, gain int64) {
	if n := len(samples) &^ 15; useAVX2 && n > 0 {
		l := gain & 0xFFFF
		applyGainAVX2(samples[:n], int16(gain>>16+l>>15), int16(uint16(l)))
		samples = samples[n:]
	}
	applyGainGo(samples, gain)
}

// sampleRangeAVX2 is the smallest and largest sample of s (0 for none); len(s) is a multiple of 16.
//
//go:noescape
func sampleRangeAVX2(s []int16) (lo, hi int16)

// applyGainAVX2 sets every sample v of s to low16(v × mul) + high16(v × mulhi), signed 16-bit
// multiplies; len(s) is a multiple of 16.
//
//go:noescape
func applyGainAVX2(s []int16, mul, mulhi int16)
