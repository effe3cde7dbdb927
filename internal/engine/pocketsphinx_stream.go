package engine

/*
#include <pocketsphinx.h>

// timbre_ps_live_start starts a live utterance.
static int timbre_ps_live_start(ps_decoder_t *ps) { return ps_start_utt(ps); }

// timbre_ps_live_feed searches more of a live utterance as it arrives, so that ps_get_hyp has
// a hypothesis at any time (no full_utt: live cepstral mean normalisation).
static int timbre_ps_live_feed(ps_decoder_t *ps, const int16 *data, size_t n) {
	return ps_process_raw(ps, data, n, FALSE, FALSE);
}

// timbre_ps_live_hyp is the live utterance's best hypothesis so far (NULL: none yet).
static const char *timbre_ps_live_hyp(ps_decoder_t *ps) { return ps_get_hyp(ps, NULL); }

static int timbre_ps_live_end(ps_decoder_t *ps) { return ps_end_utt(ps); }
*/
import "C"

import (
	"context"
	"errors"
	"math"
	"strings"
	"unsafe"

	"timbre/internal/audio"
)

var _ StreamingRecognizer = (*Pocketsphinx)(nil)

// OpenStream implements StreamingRecognizer: the session takes a decoder from the pool for its
// whole life. The decoder searches the audio as it arrives (live cepstral mean normalisation,
// its mean starting at the model's and carried from one utterance of the session to the next),
// so a partial hypothesis is there at any time; a commit ends the utterance and takes the best path of its word lattice, with times
// and posteriors, as batch decoding does. Unlike batch decoding (Transcribe) the live search
// never sees the whole utterance at once, so the two can differ in a word or two.
func (p *Pocketsphinx) OpenStream(ctx context.Context, opts StreamOptions) (RecognitionStream, error) {
	if l := BaseLanguage(opts.Language); l != "" && l != "en" {
		return nil, &UnsupportedLanguageError{Language: opts.Language, Supported: p.Languages()}
	}
	if opts.SampleRate <= 0 {
		return nil, errors.New("pocketsphinx: invalid sample rate")
	}
	ps, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	restore, err := p.setKeyterms(ps, opts.Keyterms)
	if err != nil {
		p.release(ps)
		return nil, err
	}
	// The session starts as on a decoder just loaded; within it, the noise estimate and the
	// live mean carry from one utterance to the next.
	if err := p.refresh(ps); err != nil {
		if restore != nil {
			restore()
		}
		p.release(ps)
		return nil, err
	}
	s := &psStream{p: p, ps: ps, restore: restore}
	if opts.SampleRate != RecognitionRate {
		s.rs = audio.NewResampler(opts.SampleRate, RecognitionRate)
	}
	return s, nil
}

// psStream is a pocketsphinx streaming session.
type psStream struct {
	p       *Pocketsphinx
	ps      *C.ps_decoder_t
	restore func()
	rs      *audio.Resampler // nil at RecognitionRate

	live     bool    // a live utterance is open in the decoder
	uttLen   int64   // samples of the uncommitted utterance at RecognitionRate
	uttStart int64   // where utt starts, in samples from the session's start
	loudest  float64 // the utterance's loudest 10 ms frame (RMS)
	quietRun int     // samples of quiet at the utterance's end
	frameAcc float64 // sum of squares of the frame being measured
	frameLen int
	buf      []int16 // scratch for resampling
	closed   bool
}

// Feed implements RecognitionStream.
func (s *psStream) Feed(samples []int16) error {
	if s.closed {
		return errors.New("pocketsphinx: stream closed")
	}
	if s.rs != nil {
		s.buf = s.rs.Process(s.buf[:0], samples)
		samples = s.buf
	}
	if len(samples) == 0 {
		return nil
	}
	if !s.live {
		if C.timbre_ps_live_start(s.ps) < 0 {
			return errors.New("pocketsphinx: cannot start an utterance")
		}
		s.live = true
	}
	s.uttLen += int64(len(samples))
	s.measure(samples)
	if C.timbre_ps_live_feed(s.ps, (*C.int16)(unsafe.Pointer(&samples[0])), C.size_t(len(samples))) < 0 {
		return errors.New("pocketsphinx: decoding failed")
	}
	return nil
}

// quietBelow is how far under the utterance's loudest frame a frame counts as quiet (30 dB),
// and quietFloor the RMS under which it is quiet anyway (digital near-silence).
const (
	quietBelow = 0.0316
	quietFloor = 60.0
	frameLen   = RecognitionRate / 100 // 10 ms
)

// measure tracks the loudness of 10 ms frames: the loudest so far and the quiet run at the end.
func (s *psStream) measure(samples []int16) {
	for _, v := range samples {
		s.frameAcc += float64(v) * float64(v)
		s.frameLen++
		if s.frameLen < frameLen {
			continue
		}
		rms := math.Sqrt(s.frameAcc / frameLen)
		s.frameAcc, s.frameLen = 0, 0
		s.loudest = max(s.loudest, rms)
		if rms < quietFloor || rms < s.loudest*quietBelow {
			s.quietRun += frameLen
		} else {
			s.quietRun = 0
		}
	}
}

// Partial implements RecognitionStream.
func (s *psStream) Partial() string {
	if !s.live {
		return ""
	}
	h := C.timbre_ps_live_hyp(s.ps)
	if h == nil {
		return ""
	}
	var words []string
	for _, w := range strings.Fields(C.GoString(h)) {
		if w = sphinxWord(w); w != "" {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

// Pending implements RecognitionStream.
func (s *psStream) Pending() (total, quietTail float64) {
	return float64(s.uttLen) / RecognitionRate, float64(s.quietRun) / RecognitionRate
}

// Seconds implements RecognitionStream.
func (s *psStream) Seconds() float64 {
	return float64(s.uttStart+s.uttLen) / RecognitionRate
}

// Commit implements RecognitionStream.
func (s *psStream) Commit() ([]TranscriptWord, error) {
	if s.closed {
		return nil, errors.New("pocketsphinx: stream closed")
	}
	if s.live {
		s.live = false // ended even when it failed: never end an utterance twice
		if C.timbre_ps_live_end(s.ps) < 0 {
			return nil, errors.New("pocketsphinx: decoding failed")
		}
	} else {
		return nil, nil // nothing since the last commit
	}
	offset := float64(s.uttStart) / RecognitionRate
	fr := frameRate(s.ps)
	words := utteranceWords(s.ps, func(f C.int, _ bool) float64 { return offset + float64(f)/fr })
	s.uttStart += s.uttLen
	s.uttLen = 0
	s.loudest, s.quietRun = 0, 0
	return words, nil
}

// Close implements RecognitionStream.
func (s *psStream) Close() {
	if s.closed {
		return
	}
	s.closed = true
	if s.live {
		C.timbre_ps_live_end(s.ps)
	}
	if s.restore != nil {
		s.restore()
	}
	s.p.release(s.ps)
}
