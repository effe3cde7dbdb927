package music

import (
	"math"
	"testing"
)

// TestGenresMeasured: across genres (swing, four-on-the-floor, shuffle, straight rock), the
// measured tempo is within 5 % of the plan's and the loudness within 2 LU of the target (the
// gain is set from a probe of the loudest section before anything is sent, so that songs stream).
func TestGenresMeasured(t *testing.T) {
	for _, g := range []string{"jazz", "edm", "blues", "rock"} {
		p := PlanFromPrompt(g+" 104 bpm", 20000)
		a := render(t, p, 3)
		bpm, lufs := Tempo(a, SampleRate), LoudnessPCM(a, SampleRate)
		t.Logf("%s: %.1f bpm, %.1f LUFS", g, bpm, lufs)
		if math.Abs(bpm-104)/104 > 0.05 || math.Abs(lufs-TargetLUFS) > 2 {
			t.Errorf("%s: %.1f bpm (plan 104), %.1f LUFS (target %.0f)", g, bpm, lufs, TargetLUFS)
		}
	}
}
