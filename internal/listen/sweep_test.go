package listen_test

import (
	"testing"

	"timbre/internal/engine/enginetest"
	"timbre/internal/listen"
)

// TestDiarizeThresholdSweep: one to four flite voices taking turns over twelve sentences. At
// the default threshold each gives its number of speakers with every word right; a higher
// diarization_threshold never gives more speakers than a lower one.
func TestDiarizeThresholdSweep(t *testing.T) {
	for _, vs := range [][]string{{"slt"}, {"rms"}, {"awb", "rms"}, {"slt", "rms", "kal16"}, {"slt", "awb", "rms", "kal16"}} {
		pcm, words := conversation(t, vs, enginetest.HarvardSentences()[:12], 0.7)
		prev := 1 << 30
		for _, th := range []float64{0.1, 0.15, 0.22, 0.3, 0.4} {
			turns, err := listen.Diarize(pcm, listen.DiarizeOptions{Threshold: th})
			if err != nil {
				t.Fatal(err)
			}
			n, right := speakers(turns), attributed(turns, words)
			t.Logf("%v threshold %.2f: %d speakers, %.0f %% of words right", vs, th, n, 100*right)
			if n > prev {
				t.Errorf("%v: threshold %.2f gave more speakers (%d) than a lower one (%d)", vs, th, n, prev)
			}
			if th == listen.DefaultThreshold && (n != len(vs) || right < 1) {
				t.Errorf("%v at the default threshold: %d speakers, %.0f %% of words right", vs, n, 100*right)
			}
			prev = n
		}
	}
}
