package watermark

import "golang.org/x/sys/cpu"

var useAVX2 = cpu.X86.HasAVX2

// markRun is markRunGo with AVX2, eight samples a step, giving the same samples: the float
// arithmetic is the same single-precision multiply, add and truncation, and the saturating pack
// to 16 bits is the clip.
func markRun(s []int16, c []float32, gain float32) int32 {
	n := len(s) &^ 7
	if !useAVX2 || n == 0 {
		return markRunGo(s, c, gain)
	}
	c = c[:len(s)]
	peak := markRunAVX2(s[:n], c[:n], gain)
	return max(peak, markRunGo(s[n:], c[n:], gain))
}

// markRunAVX2 is markRunGo for len(s) a multiple of 8 and len(c) ≥ len(s).
//
//go:noescape
func markRunAVX2(s []int16, c []float32, gain float32) int32
