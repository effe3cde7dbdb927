package engine

import "context"

// StreamOptions configures a streaming recognition session.
type StreamOptions struct {
	SampleRate int    // of the PCM the caller feeds (resampled to RecognitionRate inside)
	Language   string // "" or a language the recognizer knows
	Keyterms   []string
}

// StreamingRecognizer recognizes speech as it arrives (real-time speech to text).
type StreamingRecognizer interface {
	Recognizer
	// OpenStream starts a session holding one decoder until Close; it waits for a free
	// decoder until ctx ends.
	OpenStream(ctx context.Context, opts StreamOptions) (RecognitionStream, error)
}

// RecognitionStream is one session of streaming recognition. It is not safe for concurrent use.
type RecognitionStream interface {
	// Feed adds mono 16-bit samples at the session's sample rate.
	Feed(samples []int16) error
	// Partial is the best hypothesis of the utterance so far ("" before any word).
	Partial() string
	// Commit ends the utterance and returns its words, timed from the start of the session.
	Commit() ([]TranscriptWord, error)
	// Pending is how long the uncommitted utterance is, and how much of its end is quiet.
	Pending() (total, quietTail float64)
	// Seconds is all the audio fed so far.
	Seconds() float64
	// Close gives the decoder back.
	Close()
}
