// Package engine holds the speech engines behind small interfaces: synthesizers turn text into
// PCM with word timings, and the codec turns PCM into every output format the API offers.
package engine

import (
	"context"
	"errors"
)

// PCM is mono signed 16-bit audio at SampleRate.
type PCM struct {
	Samples    []int16
	SampleRate int
}

// Seconds is the duration of the audio.
func (p PCM) Seconds() float64 {
	if p.SampleRate == 0 {
		return 0
	}
	return float64(len(p.Samples)) / float64(p.SampleRate)
}

// WordMark places one word of the synthesized text in the audio: Offset and Length are byte
// offsets into the text passed to Synthesize; Start and End are seconds from the start of the audio.
type WordMark struct {
	Offset, Length int
	Start, End     float64
}

// Prosody is what the voice settings map to (see speech.MapVoiceSettings for the mapping).
type Prosody struct {
	Rate       float64 // 1.0 = the engine's normal speaking rate; API speed 0.7–1.2 (Timbre allows 0.5–2.0)
	Pitch      int     // 0–100, 50 = the voice's normal pitch
	PitchRange int     // 0–100, 50 = normal; 0 = monotone, 100 = most expressive
}

// Request is one synthesis: a single sentence or short passage in one language.
type Request struct {
	Text     string
	Voice    string // the engine's own voice name (espeak "en-us+f3", flite "slt", …)
	Language string // ISO 639-1 code or espeak language code; empty = the voice's default
	Prosody  Prosody
}

// Result is the audio and the time of every word in Request.Text.
type Result struct {
	Audio PCM
	Words []WordMark
}

// VoiceInfo describes a voice an engine can speak with.
type VoiceInfo struct {
	Name      string   // engine-local name, used in Request.Voice
	Languages []string // ISO 639-1 codes (first is the primary one)
	Gender    string   // "male", "female" or ""
}

// Synthesizer turns text into speech. Implementations must be safe for concurrent use.
type Synthesizer interface {
	Name() string // "espeak", "flite", "openai", …
	Voices(ctx context.Context) ([]VoiceInfo, error)
	Synthesize(ctx context.Context, req Request) (*Result, error)
}

// ErrUnknownVoice is returned when Request.Voice is not one of the engine's voices.
var ErrUnknownVoice = errors.New("engine: unknown voice")
