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
	// F0Hz, when set, replaces the voice's own mean pitch (Hz) before Pitch shifts it: cloned and
	// designed voices are a base voice spoken at a measured pitch.
	F0Hz float64
	// Formant scales the vocal tract's resonances: 0 or 1 = the voice's own, 1.1 = formants 10 %
	// higher (a shorter tract: brighter, younger, more female), 0.9 = lower, clamped to 0.75–1.35.
	// flite honours both (but its rms voice keeps its own pitch); espeak-ng ignores them.
	Formant float64
}

// FormantScale is p.Formant clamped to what engines apply, 1 when unset.
func (p Prosody) FormantScale() float64 {
	if p.Formant <= 0 {
		return 1
	}
	return min(max(p.Formant, 0.75), 1.35)
}

// Request is one synthesis: a single sentence or short passage in one language.
type Request struct {
	Text     string
	Voice    string // the engine's own voice name (espeak "en-us+f3", flite "slt", …)
	Language string // ISO 639-1 code or espeak language code; empty = the voice's default
	Prosody  Prosody
	// Pronunciations: spans of Text to speak as given phones (in order, not overlapping).
	Pronunciations []Pronunciation
	// Seed starts the engine's random choices (flite's excitation noise), so the same request
	// makes the same audio. 0 and 1 are C's initial state: what the flite command makes.
	Seed uint32
}

// Result is the audio and the time of every word in Request.Text.
type Result struct {
	Audio PCM
	Words []WordMark
	// Phonemes the engine spoke, in its own phone set (espeak-ng mnemonics, flite's CMU
	// phones), where it reports them.
	Phonemes []string

	pooled []int16 // Audio.Samples' buffer when it came from sampleBuffers (see Release)
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
