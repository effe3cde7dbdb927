package sts

import (
	"math"
	"testing"

	"timbre/internal/engine"
)

// TestPiecesCoverTheRecording: pieces are contiguous, cover every sample once, and none is
// longer than maxPieceSec, also where there is no pause to cut at (a 30 s tone) or nothing at
// all (silence); a short recording is one piece.
func TestPiecesCoverTheRecording(t *testing.T) {
	tone := make([]int16, 30*16000)
	for i := range tone {
		tone[i] = int16(8000 * math.Sin(2*math.Pi*220*float64(i)/16000) * (1 + 0.5*math.Sin(2*math.Pi*3*float64(i)/16000)))
	}
	for name, c := range map[string]struct {
		pcm  engine.PCM
		want int // pieces; 0: at least two
	}{
		"tone 30 s at 16 kHz":    {engine.PCM{Samples: tone, SampleRate: 16000}, 0},
		"silence 25 s at 24 kHz": {engine.PCM{Samples: make([]int16, 25*24000), SampleRate: 24000}, 0},
		"short 2 s":              {engine.PCM{Samples: tone[:32000], SampleRate: 16000}, 1},
	} {
		ps := pieces(c.pcm)
		from := 0
		for _, p := range ps {
			if p.from != from || p.to <= p.from || float64(p.to-p.from) > maxPieceSec*float64(c.pcm.SampleRate) {
				t.Fatalf("%s: pieces %v", name, ps)
			}
			from = p.to
		}
		if from != len(c.pcm.Samples) || c.want == 0 && len(ps) < 2 || c.want > 0 && len(ps) != c.want {
			t.Fatalf("%s: pieces %v of %d samples", name, ps, len(c.pcm.Samples))
		}
	}
}
