package vec

import "golang.org/x/sys/cpu"

var useAVX2 = cpu.X86.HasAVX2

// Dot is Σ w[k]·x[k] (len(x) ≥ len(w)): dotLanes, eight products a step with AVX2, giving the
// same sum (the same single-precision multiplies and adds in the same order).
func Dot(w, x []float32) float32 {
	n := len(w) &^ 7
	if !useAVX2 || n == 0 {
		return dotLanes(w, x)
	}
	x = x[:len(w)]
	acc := dotAVX2(w[:n], x[:n])
	for k := n; k < len(w); k++ {
		acc += w[k] * x[k]
	}
	return acc
}

// dotAVX2 is dotLanes for len(w) a multiple of 8 and len(x) ≥ len(w).
//
//go:noescape
func dotAVX2(w, x []float32) float32
