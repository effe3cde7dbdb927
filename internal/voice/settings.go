package voice

import (
	"math"

	"timbre/internal/engine"
	"timbre/internal/errs"
)

// Settings are the API's voice settings. Pointers tell "not given" from zero.
type Settings struct {
	Stability       *float64 `json:"stability"`
	SimilarityBoost *float64 `json:"similarity_boost"`
	Style           *float64 `json:"style"`
	UseSpeakerBoost *bool    `json:"use_speaker_boost"`
	Speed           *float64 `json:"speed"`
}

// Resolved are settings with every field filled.
type Resolved struct {
	Stability       float64 `json:"stability"`
	SimilarityBoost float64 `json:"similarity_boost"`
	Style           float64 `json:"style"`
	UseSpeakerBoost bool    `json:"use_speaker_boost"`
	Speed           float64 `json:"speed"`
}

// Defaults are the API's default voice settings.
var Defaults = Resolved{Stability: 0.5, SimilarityBoost: 0.75, Style: 0, UseSpeakerBoost: true, Speed: 1.0}

// Speed bounds: the API documents 0.7–1.2.
const (
	MinSpeed = 0.7
	MaxSpeed = 1.2
)

// Validate checks ranges; where is the location prefix for errors ("body" plus field path).
func (s *Settings) Validate(v *errs.Validator, prefix string) {
	if s == nil {
		return
	}
	unit := func(name string, p *float64) {
		if p != nil && (math.IsNaN(*p) || *p < 0 || *p > 1) {
			v.Add("body", prefix+name, "value_error", "Input should be between 0.0 and 1.0.")
		}
	}
	unit("stability", s.Stability)
	unit("similarity_boost", s.SimilarityBoost)
	unit("style", s.Style)
	if s.Speed != nil && (math.IsNaN(*s.Speed) || *s.Speed < MinSpeed || *s.Speed > MaxSpeed) {
		v.Add("body", prefix+"speed", "value_error", "Input should be between 0.7 and 1.2.")
	}
}

// Over fills the unset fields of s from base.
func (s *Settings) Over(base Resolved) Resolved {
	out := base
	if s == nil {
		return out
	}
	if s.Stability != nil {
		out.Stability = *s.Stability
	}
	if s.SimilarityBoost != nil {
		out.SimilarityBoost = *s.SimilarityBoost
	}
	if s.Style != nil {
		out.Style = *s.Style
	}
	if s.UseSpeakerBoost != nil {
		out.UseSpeakerBoost = *s.UseSpeakerBoost
	}
	if s.Speed != nil {
		out.Speed = *s.Speed
	}
	return out
}

// Prosody maps voice settings onto what a classical engine can vary:
//   - speed multiplies the voice's speaking rate;
//   - stability narrows the pitch range (1 = near monotone, 0 = widest, 0.5 = the voice's own);
//   - style widens the range further and lifts the pitch a little (more animated delivery);
//   - similarity_boost keeps the pitch at the voice's own: lower values drift it toward the
//     engine's neutral pitch (0.75, the default, is exactly the voice's pitch);
//   - use_speaker_boost is applied after synthesis as loudness normalisation (speech package).
func (r Resolved) Prosody(base BaseProsody) engine.Prosody {
	rate := base.Rate
	if rate == 0 {
		rate = 1
	}
	rangeV := float64(base.PitchRange) + (0.5-r.Stability)*80 + r.Style*30
	pitch := 50 + float64(base.Pitch-50)*math.Min(r.SimilarityBoost/0.75, 1.33) + r.Style*6
	return engine.Prosody{Rate: rate * r.Speed, Pitch: clamp(pitch), PitchRange: clamp(rangeV), F0Hz: base.F0Hz, Formant: base.Formant}
}

func clamp(x float64) int {
	return int(math.Round(math.Max(0, math.Min(100, x))))
}
