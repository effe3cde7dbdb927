package engine

/*
#cgo pkg-config: pocketsphinx
#include <stdlib.h>
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/logmath.h>

// timbre_ps_quiet stops sphinx's logging to stderr (it logs every utterance); errors come back
// as return codes.
static void timbre_ps_quiet(void) { err_set_logfp(NULL); }

// timbre_ps_new loads a decoder: the acoustic model, the language model and the dictionary.
// The front end's voice activity detector is off: it drops the frames it takes for silence,
// which shifts every later word's time (splitPieces leaves out long silences instead).
static ps_decoder_t *timbre_ps_new(const char *hmm, const char *lm, const char *dict, const char *remove_silence) {
	cmd_ln_t *cfg = cmd_ln_init(NULL, ps_args(), TRUE, "-hmm", hmm, "-lm", lm, "-dict", dict,
		"-remove_silence", remove_silence, NULL);
	if (cfg == NULL)
		return NULL;
	ps_decoder_t *ps = ps_init(cfg);
	cmd_ln_free_r(cfg); // the decoder holds its own reference
	return ps;
}

// timbre_ps_decode decodes one whole utterance, as ps_decode_raw (and so pocketsphinx_batch)
// does: all samples at once with full_utt set, which lets batch CMN see the whole utterance.
static int timbre_ps_decode(ps_decoder_t *ps, const int16 *data, size_t n) {
	if (ps_start_utt(ps) < 0)
		return -1;
	if (ps_process_raw(ps, data, n, FALSE, TRUE) < 0) {
		ps_end_utt(ps);
		return -1;
	}
	return ps_end_utt(ps);
}

// timbre_ps_frate is the decoder's frames per second (segment times are in frames).
static int timbre_ps_frate(ps_decoder_t *ps) { return cmd_ln_int32_r(ps_get_config(ps), "-frate"); }

// timbre_seg_prob is a segment's log posterior probability (in the decoder's log base).
static int32 timbre_seg_prob(ps_seg_t *seg) {
	int32 ascr, lscr, lback;
	return ps_seg_prob(seg, &ascr, &lscr, &lback);
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// PocketsphinxModelDir is where Debian's pocketsphinx-en-us installs the US English model.
const PocketsphinxModelDir = "/usr/share/pocketsphinx/model/en-us"

// PocketsphinxConfig configures the embedded recognizer.
type PocketsphinxConfig struct {
	ModelDir string // holds en-us/ (acoustic model), en-us.lm.bin and cmudict-en-us.dict; default PocketsphinxModelDir
	// Workers is how many decoders may run at once (each holds its own copy of the models, about
	// 60 MB); default one per CPU. Decoders are loaded on first use.
	Workers int
}

// Pocketsphinx is the embedded English recognizer: CMU pocketsphinx through cgo. A decoder is
// not safe for concurrent use, so it keeps a pool of them; long audio is cut at pauses
// (splitPieces) and the pieces are decoded in parallel.
type Pocketsphinx struct {
	hmm, lm, dict *C.char
	slots         chan struct{}        // one token per decoder that may exist
	idle          chan *C.ps_decoder_t // loaded decoders not in use

	mu       sync.Mutex
	all      []*C.ps_decoder_t
	closed   bool
	loadTime time.Duration // of the last decoder loaded

	removeSilence bool // tests: the front end's VAD on, as pocketsphinx's commands have it
}

var psQuietOnce sync.Once

// NewPocketsphinx checks that the model files exist; no decoder is loaded until the first
// transcription (loading one takes a fraction of a second to a second: see LoadTime).
func NewPocketsphinx(cfg PocketsphinxConfig) (*Pocketsphinx, error) {
	if cfg.ModelDir == "" {
		cfg.ModelDir = PocketsphinxModelDir
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	hmm := filepath.Join(cfg.ModelDir, "en-us")
	lm := filepath.Join(cfg.ModelDir, "en-us.lm.bin")
	dict := filepath.Join(cfg.ModelDir, "cmudict-en-us.dict")
	for _, p := range []string{filepath.Join(hmm, "mdef"), lm, dict} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("pocketsphinx: model file missing (install pocketsphinx-en-us): %w", err)
		}
	}
	psQuietOnce.Do(func() { C.timbre_ps_quiet() })
	return &Pocketsphinx{
		hmm: C.CString(hmm), lm: C.CString(lm), dict: C.CString(dict),
		slots: make(chan struct{}, cfg.Workers),
		idle:  make(chan *C.ps_decoder_t, cfg.Workers),
	}, nil
}

var _ Recognizer = (*Pocketsphinx)(nil)

// Name implements Recognizer.
func (*Pocketsphinx) Name() string { return "pocketsphinx" }

// Languages implements Recognizer: the model is US English.
func (*Pocketsphinx) Languages() []string { return []string{"en"} }

// Workers is how many decoders may run at once.
func (p *Pocketsphinx) Workers() int { return cap(p.slots) }

// LoadTime is how long the most recently loaded decoder took to load (0 before the first).
func (p *Pocketsphinx) LoadTime() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.loadTime
}

// acquire returns an idle decoder, loads a new one while fewer than Workers exist, or waits.
func (p *Pocketsphinx) acquire(ctx context.Context) (*C.ps_decoder_t, error) {
	select {
	case ps := <-p.idle:
		return ps, nil
	default:
	}
	select {
	case ps := <-p.idle:
		return ps, nil
	case p.slots <- struct{}{}:
		ps, err := p.load()
		if err != nil {
			<-p.slots
		}
		return ps, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *Pocketsphinx) load() (*C.ps_decoder_t, error) {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return nil, errors.New("pocketsphinx: recognizer is closed")
	}
	t0 := time.Now()
	removeSilence := C.CString("no")
	if p.removeSilence {
		removeSilence = C.CString("yes")
	}
	defer C.free(unsafe.Pointer(removeSilence))
	ps := C.timbre_ps_new(p.hmm, p.lm, p.dict, removeSilence)
	if ps == nil {
		return nil, errors.New("pocketsphinx: cannot load the model")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.loadTime = time.Since(t0)
	p.all = append(p.all, ps)
	return ps, nil
}

func (p *Pocketsphinx) release(ps *C.ps_decoder_t) { p.idle <- ps }

// Close frees the decoders. Transcriptions must have ended.
func (p *Pocketsphinx) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	for _, ps := range p.all {
		C.ps_free(ps)
	}
	p.all = nil
	C.free(unsafe.Pointer(p.hmm))
	C.free(unsafe.Pointer(p.lm))
	C.free(unsafe.Pointer(p.dict))
}

// Transcribe implements Recognizer. The audio is cut at pauses and the pieces are decoded by up
// to Workers decoders at once; each piece is one utterance, so cancelling ctx takes effect
// between pieces (a piece is at most 30 s of audio). Confidences are the words' posterior
// probabilities in the decoder's word lattice. Keyterms are not used: this engine cannot bias
// its language model per request (the service may still match keyterms in the text).
// Language must be empty or English.
func (p *Pocketsphinx) Transcribe(ctx context.Context, pcm PCM, opts TranscribeOptions) (*Transcript, error) {
	if l := BaseLanguage(opts.Language); l != "" && l != "en" {
		return nil, &UnsupportedLanguageError{Language: opts.Language, Supported: p.Languages()}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pcm = toRecognitionRate(pcm)
	pieces := splitPieces(pcm.Samples, pcm.SampleRate)
	results := make([][]TranscriptWord, len(pieces))
	errs := make([]error, len(pieces))

	// One goroutine per decoder that may run, each taking the next piece: pieces finish in
	// any order but results keep theirs.
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(p.Workers(), len(pieces)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(pieces) {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[i] = err
					return
				}
				results[i], errs[i] = p.decodePiece(ctx, pcm, pieces[i])
				if errs[i] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	var words []TranscriptWord
	for _, ws := range results {
		words = append(words, ws...)
	}
	return &Transcript{
		Text: joinWords(words), Language: "en", LanguageProbability: 1, Words: words,
		Duration: pcm.Seconds(),
	}, nil
}

// decodePiece decodes samples [pc.Start, pc.End) of pcm and returns its words with times from
// the start of pcm.
func (p *Pocketsphinx) decodePiece(ctx context.Context, pcm PCM, pc piece) ([]TranscriptWord, error) {
	ps, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer p.release(ps)
	data := pcm.Samples[pc.Start:pc.End]
	if len(data) == 0 {
		return nil, nil
	}
	if C.timbre_ps_decode(ps, (*C.int16)(unsafe.Pointer(&data[0])), C.size_t(len(data))) < 0 {
		return nil, errors.New("pocketsphinx: decoding failed")
	}
	offset := float64(pc.Start) / float64(pcm.SampleRate)
	frameRate := float64(C.timbre_ps_frate(ps))
	lmath := C.ps_get_logmath(ps)
	var words []TranscriptWord
	var score C.int32
	if C.ps_get_hyp(ps, &score) == nil {
		return nil, nil
	}
	for seg := C.ps_seg_iter(ps); seg != nil; seg = C.ps_seg_next(seg) {
		word := sphinxWord(C.GoString(C.ps_seg_word(seg)))
		if word == "" {
			continue
		}
		var sf, ef C.int
		C.ps_seg_frames(seg, &sf, &ef)
		logprob := float64(C.logmath_log_to_ln(lmath, C.timbre_seg_prob(seg)))
		words = append(words, TranscriptWord{
			Text:    word,
			Start:   offset + float64(sf)/frameRate,
			End:     offset + float64(ef+1)/frameRate, // ef is the word's last frame
			Logprob: min(logprob, 0),
		})
	}
	return words, nil
}

// sphinxWord is the word as a transcript shows it: "" for silence and noise markers (<s>,
// <sil>, [NOISE]), and without the alternative-pronunciation suffix ("read(2)" → "read").
func sphinxWord(w string) string {
	if w == "" || w[0] == '<' || w[0] == '[' {
		return ""
	}
	if i := strings.IndexByte(w, '('); i > 0 {
		w = w[:i]
	}
	return w
}
