package vec

import "golang.org/x/sys/cpu"

var useAVX2 = cpu.X86.HasAVX2

// Dot is Σ w[k]·x[k] (len(x) ≥ len(w)): dotLanes, eight products a step with AVX2, giving the
// same sum (the same single-precision multiplies and adds in the same order).
func Dot(w, x []float32) float32 {
	if !useAVX2 {
		return dotLanes(w, x)
	}
	return dotAVX2(w, x[:len(w)])
}

// dotAVX2 is dotLanes for len(x) ≥ len(w).
//
//go:noescape
func dotAVX2(w, x []float32) float32
