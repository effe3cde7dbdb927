//go:build !amd64

package watermark

func markRun(s []int16, c []float32, gain float32) int32 { return markRunGo(s, c, gain) }
