//go:build !amd64

package tts

func sampleRange(samples []int16) (lo, hi int16) { return sampleRangeGo(samples) }

func applyGain(samples []int16, gain int64) { applyGainGo(samples, gain) }
