package tts

import (
	"context"

	"timbre/internal/plan"
)

// Render synthesizes a prepared job's text without charging, storing or encoding it: the audio
// at the engine's rate (speaker boost and watermark applied, as every request's) and the
// alignments of its text, times from zero. Text to dialogue builds its lines from it.
func (s *Service) Render(ctx context.Context, j *Job) (pcm []int16, rate int, al *Alignments, err error) {
	syn, err := s.startSynthesis(ctx, j, false)
	if err != nil {
		return nil, 0, nil, err
	}
	defer syn.stop()
	syn.follow(ctx)
	al = &Alignments{}
	err = syn.each(func(c Chunk) error {
		if rate == 0 {
			rate = c.Rate
		}
		pcm = append(pcm, resampleIf(c.PCM, c.Rate, rate)...)
		al.Alignment.append(c.Original)
		al.NormalizedAlignment.append(c.Normalized)
		return nil
	})
	if err != nil {
		return nil, 0, nil, err
	}
	return pcm, rate, al, nil
}

// Tier is the plan of the job's workspace, as Prepare read it.
func (j *Job) Tier() plan.Tier { return j.tier }

// Append adds b's characters to a.
func (a *Alignment) Append(b Alignment) { a.append(b) }

// StoredJSON is the alignments as a history row keeps them ("" when they cannot be encoded).
func (a *Alignments) StoredJSON() string { return a.storedJSON() }
