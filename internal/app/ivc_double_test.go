package app_test

import (
	"context"
	"errors"
	"math"
	"sort"

	"timbre/internal/engine"
	"timbre/internal/voiceprint"
)

// doubleCloner stands in for voiceprint.Cloner until it is merged: frame energy for speech and
// autocorrelation for pitch, the flite awb voice at that pitch.
type doubleCloner struct{}

func (doubleCloner) Analyse(pcm engine.PCM) (*voiceprint.Print, error) {
	n := pcm.SampleRate / 50
	var f0s []float64
	speech := 0.0
	for i := 0; i+2*n <= len(pcm.Samples); i += n {
		fr := pcm.Samples[i : i+2*n]
		var e float64
		for _, s := range fr {
			e += float64(s) * float64(s)
		}
		if math.Sqrt(e/float64(len(fr))) < 300 {
			continue
		}
		speech += 0.02
		best, lag := 0.0, 0
		for l := pcm.SampleRate / 400; l < pcm.SampleRate/60 && l < len(fr); l++ {
			var c float64
			for k := 0; k+l < len(fr); k++ {
				c += float64(fr[k]) * float64(fr[k+l])
			}
			if c > best {
				best, lag = c, l
			}
		}
		if lag > 0 {
			f0s = append(f0s, float64(pcm.SampleRate)/float64(lag))
		}
	}
	if len(f0s) == 0 {
		return nil, errors.New("no voiced speech")
	}
	sort.Float64s(f0s)
	return &voiceprint.Print{F0Median: f0s[len(f0s)/2], SpeechSeconds: speech, Rate: 4}, nil
}

func (doubleCloner) Merge(ps []*voiceprint.Print) *voiceprint.Print {
	out := *ps[0]
	out.F0Median, out.SpeechSeconds = 0, 0
	for _, p := range ps {
		out.F0Median += p.F0Median / float64(len(ps))
		out.SpeechSeconds += p.SpeechSeconds
	}
	return &out
}

func (doubleCloner) Fit(ctx context.Context, p *voiceprint.Print) (voiceprint.Fit, error) {
	return voiceprint.Fit{Engine: "flite", EngineVoice: "awb", F0Hz: p.F0Median, Formant: 1, Rate: 1, PitchRange: 50}, nil
}
