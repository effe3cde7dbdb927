// Package vec holds the audio code's vector arithmetic, with AVX2 assembly on amd64 (Go forbids
// assembly in the cgo package audio).
package vec

// dotLanes is Σ w[k]·x[k] (len(x) ≥ len(w)) in eight lane sums, lane j taking the products
// with k ≡ j (mod 8) below len(w) &^ 7; the lanes are added j with j+4, then j with j+2, then
// the last two, and the rest of the products one by one. Independent sums keep the
// floating-point unit busy (one running sum waits on each addition), and this order is the one
// AVX2 computes eight products a step in (dot_amd64.s), so both give the same samples.
func dotLanes(w, x []float32) float32 {
	x = x[:len(w)]
	var a [8]float32
	n := len(w) &^ 7
	for k := 0; k < n; k += 8 {
		ww, xx := w[k:k+8:k+8], x[k:k+8:k+8]
		a[0] += ww[0] * xx[0]
		a[1] += ww[1] * xx[1]
		a[2] += ww[2] * xx[2]
		a[3] += ww[3] * xx[3]
		a[4] += ww[4] * xx[4]
		a[5] += ww[5] * xx[5]
		a[6] += ww[6] * xx[6]
		a[7] += ww[7] * xx[7]
	}
	s0, s1, s2, s3 := a[0]+a[4], a[1]+a[5], a[2]+a[6], a[3]+a[7]
	acc := (s0 + s2) + (s1 + s3)
	for k := n; k < len(w); k++ {
		acc += w[k] * x[k]
	}
	return acc
}
