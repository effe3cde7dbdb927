package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"timbre/internal/audio"
)

// RecognitionRate is the sample rate recognizers work at: audio of any other rate is resampled
// to it first (DecodeForRecognition does so for files).
const RecognitionRate = 16000

// MinRecognitionSeconds is the shortest audio worth transcribing; shorter input is refused
// with ErrAudioTooShort rather than answered with an empty transcript.
const MinRecognitionSeconds = 0.1

// TranscribeOptions are the choices a caller makes for one transcription.
type TranscribeOptions struct {
	// Language is an ISO 639-1 code ("en"); empty lets the engine decide (detect it, or use the
	// only language it knows). A language the engine lacks gives an *UnsupportedLanguageError.
	Language string
	// Keyterms are words and short phrases the audio is likely to contain (names, jargon):
	// engines bias recognition toward them where they can (see each engine's Transcribe).
	Keyterms []string
	// Temperature is passed to engines that sample (whisper); nil = the engine's default.
	Temperature *float64
}

// TranscriptWord is one recognised word and where it was heard.
type TranscriptWord struct {
	Text       string
	Start, End float64 // seconds from the start of the audio
	// Logprob is the natural logarithm of the engine's confidence in the word (0 = certain);
	// Confidence is the same as a probability.
	Logprob float64
}

// Confidence is the word's probability, e^Logprob.
func (w TranscriptWord) Confidence() float64 { return math.Exp(w.Logprob) }

// Transcript is what a recognizer heard.
type Transcript struct {
	Text                string
	Language            string  // ISO 639-1
	LanguageProbability float64 // how sure the engine is of Language (1 when the caller named it)
	Words               []TranscriptWord
	Duration            float64 // seconds of audio transcribed
}

// Recognizer turns speech into text with word timings. Implementations must be safe for
// concurrent use.
type Recognizer interface {
	Name() string // "pocketsphinx", "openai", …
	// Languages lists the ISO 639-1 codes the engine can transcribe; nil means any language the
	// engine's server accepts (an adapter that cannot know in advance).
	Languages() []string
	// Transcribe transcribes mono audio (resampled to RecognitionRate when it has another rate).
	Transcribe(ctx context.Context, pcm PCM, opts TranscribeOptions) (*Transcript, error)
}

// ErrUnsupportedLanguage is matched (errors.Is) by every *UnsupportedLanguageError.
var ErrUnsupportedLanguage = errors.New("engine: unsupported language")

// UnsupportedLanguageError says that no recognizer transcribes Language; the service layer
// answers it as a 422 naming language_code.
type UnsupportedLanguageError struct {
	Language  string
	Supported []string // the languages that are available, sorted
}

func (e *UnsupportedLanguageError) Error() string {
	return fmt.Sprintf("speech recognition is not available for language %q (available: %s)",
		e.Language, strings.Join(e.Supported, ", "))
}

// Is makes errors.Is(err, ErrUnsupportedLanguage) true.
func (e *UnsupportedLanguageError) Is(target error) bool { return target == ErrUnsupportedLanguage }

// BaseLanguage reduces a language tag to its ISO 639 code: "en-US", "en_us" and "EN" → "en".
func BaseLanguage(tag string) string {
	tag = strings.ToLower(strings.TrimSpace(tag))
	if i := strings.IndexAny(tag, "-_"); i >= 0 {
		tag = tag[:i]
	}
	return tag
}

// ChooseRecognizer picks the recognizer for a language: the first in rs that lists it, else the
// first that accepts any language (Languages() == nil). An empty language picks rs[0]. When
// none covers the language the error is an *UnsupportedLanguageError.
func ChooseRecognizer(rs []Recognizer, language string) (Recognizer, error) {
	if len(rs) == 0 {
		return nil, errors.New("engine: no speech recognizer is configured")
	}
	lang := BaseLanguage(language)
	if lang == "" {
		return rs[0], nil
	}
	var open Recognizer
	var known []string
	for _, r := range rs {
		langs := r.Languages()
		if langs == nil && open == nil {
			open = r
		}
		if slices.Contains(langs, lang) {
			return r, nil
		}
		known = append(known, langs...)
	}
	if open != nil {
		return open, nil
	}
	slices.Sort(known)
	return nil, &UnsupportedLanguageError{Language: language, Supported: slices.Compact(known)}
}

// Errors of DecodeForRecognition; the service layer answers both as a 422 naming the file.
var (
	ErrNotAudio      = errors.New("engine: the file is not audio that can be decoded")
	ErrAudioTooShort = errors.New("engine: the audio is too short to transcribe")
)

// DecodeForRecognition decodes a file of any container and codec ffmpeg reads (wav, mp3, ogg,
// opus, flac, m4a, webm, a video's sound track, …) to mono PCM at RecognitionRate. Empty,
// corrupt and non-audio files give ErrNotAudio (with ffmpeg's reason); audio shorter than
// MinRecognitionSeconds gives ErrAudioTooShort.
func DecodeForRecognition(ctx context.Context, data []byte) (PCM, error) {
	if len(data) == 0 {
		return PCM{}, fmt.Errorf("%w: the file is empty", ErrNotAudio)
	}
	samples, rate, err := audio.Decode(ctx, data)
	if err != nil {
		if ctx.Err() != nil {
			return PCM{}, ctx.Err()
		}
		return PCM{}, fmt.Errorf("%w: %v", ErrNotAudio, err)
	}
	pcm := toRecognitionRate(PCM{Samples: samples, SampleRate: rate})
	if pcm.Seconds() < MinRecognitionSeconds {
		return PCM{}, fmt.Errorf("%w: %.3f s (at least %g s are needed)", ErrAudioTooShort, pcm.Seconds(), MinRecognitionSeconds)
	}
	return pcm, nil
}

// DecodeChannelsForRecognition is DecodeForRecognition keeping the file's channels apart: one
// PCM at RecognitionRate per channel, in the file's channel order (one for a mono file), all of
// the same length. Its errors are DecodeForRecognition's.
func DecodeChannelsForRecognition(ctx context.Context, data []byte) ([]PCM, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: the file is empty", ErrNotAudio)
	}
	chans, rate, err := audio.DecodeChannels(ctx, data)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %v", ErrNotAudio, err)
	}
	out := make([]PCM, len(chans))
	for i, samples := range chans {
		out[i] = toRecognitionRate(PCM{Samples: samples, SampleRate: rate})
	}
	if len(out) == 0 || out[0].Seconds() < MinRecognitionSeconds {
		secs := 0.0
		if len(out) > 0 {
			secs = out[0].Seconds()
		}
		return nil, fmt.Errorf("%w: %.3f s (at least %g s are needed)", ErrAudioTooShort, secs, MinRecognitionSeconds)
	}
	return out, nil
}

// toRecognitionRate resamples pcm to RecognitionRate when it has another rate.
func toRecognitionRate(pcm PCM) PCM {
	if pcm.SampleRate == RecognitionRate || pcm.SampleRate <= 0 {
		return pcm
	}
	return PCM{Samples: audio.Resample(pcm.Samples, pcm.SampleRate, RecognitionRate), SampleRate: RecognitionRate}
}

// joinWords is the transcript text of words: their texts separated by single spaces.
func joinWords(words []TranscriptWord) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.Text)
	}
	return b.String()
}
