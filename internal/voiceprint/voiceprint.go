// Package voiceprint describes a speaker from recordings (pitch, speaking rate, spectral envelope and
// a speaker embedding) and fits a parametric voice of the embedded engines to that description. It is
// what instant and professional cloning store with a voice, what similar-voices ranks by, and what
// speech to speech moves a recording towards.
//
// The cloner here is parametric, not neural: a clone is one of flite's voices (the nearest in
// gender and timbre) spoken at the sample's measured pitch, pitch range and speaking rate with its
// vocal tract scaled towards the sample's formants. It matches those measurements; it does not
// reproduce the speaker's voice quality the way a neural voice clone does.
//
// Analyse measures: WebRTC voice activity (listen.SpeechSegments), aubio's YIN pitch tracker,
// syllable nuclei on the band-energy envelope, LPC formants, the long-term spectrum's tilt and
// centroid, and MFCC statistics for the embedding that Similarity compares.
package voiceprint

// Print is a speaker's measured description, stored with a voice as JSON.
type Print struct {
	// Pitch over voiced frames, in Hz (a YIN tracker, not zero crossings).
	F0Median float64 `json:"f0_median_hz"`
	F0P10    float64 `json:"f0_p10_hz"`
	F0P90    float64 `json:"f0_p90_hz"`
	// F0Range is the spread of the pitch contour in semitones (p90 over p10): how lively the voice is.
	F0Range float64 `json:"f0_range_semitones"`
	// Rate is syllables per second of speech (pauses excluded).
	Rate float64 `json:"syllables_per_second"`
	// Formants are the mean first three formant frequencies over voiced frames (LPC), in Hz.
	Formants [3]float64 `json:"formants_hz"`
	// Tilt is the spectral slope in dB per octave (brightness); Centroid the spectral centroid in Hz.
	Tilt     float64 `json:"tilt_db_per_octave"`
	Centroid float64 `json:"centroid_hz"`
	// Embedding is the speaker embedding compared by Similarity.
	Embedding []float64 `json:"embedding"`
	// SpeechSeconds is how much speech the print was measured on.
	SpeechSeconds float64 `json:"speech_seconds"`
	// Gender is "male" or "female", guessed from pitch and formants.
	Gender string `json:"gender"`
}

// Fit is a parametric voice of an embedded engine that speaks like a Print.
type Fit struct {
	Engine      string  `json:"engine"`       // "flite", "espeak"
	EngineVoice string  `json:"engine_voice"` // the base voice
	F0Hz        float64 `json:"f0_hz"`        // engine.Prosody.F0Hz
	Formant     float64 `json:"formant"`      // engine.Prosody.Formant
	Rate        float64 `json:"rate"`         // base speaking-rate multiplier
	PitchRange  int     `json:"pitch_range"`  // 0–100, 50 = the base voice's own
}
