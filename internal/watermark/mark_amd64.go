package watermark

import "golang.org/x/sys/cpu"

var useAVX2 = cpu.X86.HasAVX2

// markRun is markRunGo with AVX2, eight samples a step, giving the same samples: the float
// arithmetic is the same single-precision multiplies, adds and truncation, and the saturating
// pack to 16 bits is the clip.
func markRun(s []int16, c []float32, g gainRamp) int32 {
	n := len(s) &^ 7
	if !useAVX2 || n == 0 {
		return markRunGo(s, c, g)
	}
	c = c[:len(s)]
	peak := markRunAVX2(s[:n], c[:n], g.from, g.step, g.k)
	g.k += float32(n)
	return max(peak, markRunGo(s[n:], c[n:], g))
}

// markRunAVX2 is markRunGo for len(s) a multiple of 8 and len(c) ≥ len(s), with the ramp
// gainRamp{from, step, k}.
//
//go:noescape
func markRunAVX2(s []int16, c []float32, from, step, k float32) int32
