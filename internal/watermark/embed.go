package watermark

import (
	"fmt"
	"math"
)

// The mark's amplitude is strength × the envelope of |x|. The envelope follows a rise within
// attackSec and falls over releaseSec, within the ear's post-masking (~100 ms after a sound).
const (
	strength   = 0.008
	attackSec  = 0.001
	releaseSec = 0.040
)

// Embedder marks one stream of audio at one sample rate, chunk by chunk. It carries the
// carrier's phase and the envelope between chunks, so marking a stream in pieces gives exactly
// what marking it whole gives. An Embedder is not safe for concurrent use; make one per stream.
type Embedder struct {
	carrier  []float32
	pos      int     // the next sample's place in the carrier's period
	env      float32 // the envelope of |x| so far
	atk, rel float32 // the follower's coefficients per sample
}

// NewEmbedder starts a stream at rate Hz (8,000–48,000).
func (w *Watermark) NewEmbedder(rate int) (*Embedder, error) {
	if rate < minRate || rate > maxRate {
		return nil, fmt.Errorf("watermark: sample rate %d outside %d–%d Hz", rate, minRate, maxRate)
	}
	coef := func(sec float64) float32 { return float32(1 - math.Exp(-1/(sec*float64(rate)))) }
	return &Embedder{carrier: w.carrier(rate), atk: coef(attackSec), rel: coef(releaseSec)}, nil
}

// Mark adds the watermark to samples in place. It needs no look-ahead: each sample is marked
// from the samples before it, so a chunk leaves as soon as it arrives.
func (e *Embedder) Mark(samples []int16) {
	c, pos, env := e.carrier, e.pos, e.env
	atk, rel := e.atk, e.rel
	for i, s := range samples {
		x := float32(s)
		a := x
		if a < 0 {
			a = -a
		}
		if a > env {
			env += atk * (a - env)
		} else {
			env += rel * (a - env)
		}
		y := x + strength*env*c[pos]
		if pos++; pos == len(c) {
			pos = 0
		}
		// Round half away from zero and clip to 16 bits.
		if y >= 0 {
			y += 0.5
		} else {
			y -= 0.5
		}
		switch {
		case y >= 32767:
			samples[i] = 32767
		case y <= -32768:
			samples[i] = -32768
		default:
			samples[i] = int16(y)
		}
	}
	e.pos, e.env = pos, env
}
