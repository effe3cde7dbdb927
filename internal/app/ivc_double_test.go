package app_test

import (
	"context"

	"timbre/internal/engine"
	"timbre/internal/voiceprint"
)

// doubleCloner stands in for voiceprint.Cloner until its Fit is merged: the real analysis and
// merge, and the flite awb voice at the measured pitch.
type doubleCloner struct{}

func (doubleCloner) Analyse(pcm engine.PCM) (*voiceprint.Print, error) { return voiceprint.Analyse(pcm) }

func (doubleCloner) Merge(ps []*voiceprint.Print) *voiceprint.Print { return voiceprint.Merge(ps) }

func (doubleCloner) Fit(ctx context.Context, p *voiceprint.Print) (voiceprint.Fit, error) {
	return voiceprint.Fit{Engine: "flite", EngineVoice: "awb", F0Hz: p.F0Median, Formant: 1, Rate: 1, PitchRange: 50}, nil
}
