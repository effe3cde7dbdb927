//go:build !amd64

package vec

func Dot(w, x []float32) float32 { return dotLanes(w, x) }
