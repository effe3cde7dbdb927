//go:build !amd64

package watermark

func markRun(s []int16, c []float32, g gainRamp) int32 { return markRunGo(s, c, g) }
