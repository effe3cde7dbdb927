package engine

/*
#cgo pkg-config: pocketsphinx
#include <stdlib.h>
#include <string.h>
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/ngram_model.h>
#include <sphinxbase/fsg_model.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/cmn.h>

// timbre_ps_quiet stops sphinx's logging to stderr (it logs every utterance); errors come back
// as return codes.
static void timbre_ps_quiet(void) { err_set_logfp(NULL); }

// timbre_ps_new loads a decoder configured by argc command-line settings in argv (the acoustic
// model, the language model, the dictionary, searchSettings). The front end's voice activity
// detector is off: it drops the frames it takes for silence, which shifts every later word's
// time (splitPieces leaves out the pauses instead, keeping 50 ms of silence beside the speech:
// less than the detector keeps).
static ps_decoder_t *timbre_ps_new(int argc, char **argv) {
	cmd_ln_t *cfg = cmd_ln_parse_r(NULL, ps_args(), argc, argv, FALSE);
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

// timbre_ps_cepsize is the length of the decoder's cepstral vectors.
static int timbre_ps_cepsize(ps_decoder_t *ps) { return feat_cepsize(ps_get_feat(ps)); }

// timbre_ps_state is the decoder's CMN type and live cepstral mean (into mean, cepsize values):
// on a decoder just loaded, the model's -cmn and -cmninit. It returns -1 when there is no CMN.
static int timbre_ps_state(ps_decoder_t *ps, mfcc_t *mean) {
	feat_t *f = ps_get_feat(ps);
	if (f->cmn_struct == NULL)
		return -1;
	memcpy(mean, f->cmn_struct->cmn_mean, f->cmn_struct->veclen * sizeof(mfcc_t));
	return f->cmn;
}

// timbre_ps_fresh puts back what a decoder carries from one utterance to the next as a decoder
// just loaded has it (cmn and mean from timbre_ps_state), so that what it decoded before does
// not change what it hears next:
// - the front end's noise estimate (-remove_noise, on by default), by starting a new stream;
// - the CMN type: a live utterance switches the feature module to live CMN for good, and batch
//   decoding on that decoder then normalised with the mean of earlier audio;
// - the live cepstral mean, back at -cmninit with no frames counted.
// Measured before: the same clip gave "day to go" on a fresh decoder and "day go" on a used one.
static int timbre_ps_fresh(ps_decoder_t *ps, int cmn, const mfcc_t *mean) {
	if (ps_start_stream(ps) < 0)
		return -1;
	feat_t *f = ps_get_feat(ps);
	cmn_t *c = f->cmn_struct;
	if (c == NULL || mean == NULL)
		return 0;
	f->cmn = (cmn_type_t)cmn;
	memcpy(c->cmn_mean, mean, c->veclen * sizeof(mfcc_t));
	memset(c->sum, 0, c->veclen * sizeof(mfcc_t));
	c->nframe = 0;
	return 0;
}

// timbre_ps_frate is the decoder's frames per second (segment times are in frames).
static int timbre_ps_frate(ps_decoder_t *ps) { return cmd_ln_int32_r(ps_get_config(ps), "-frate"); }

// timbre_ps_keyterms makes the decoder's next utterances use its language model interpolated
// with the keyterm model in the ARPA file at path (weight is the keyterm model's share).
static int timbre_ps_keyterms(ps_decoder_t *ps, const char *path, float weight) {
	ngram_model_t *base = ps_get_lm(ps, "_default");
	if (base == NULL)
		return -1;
	ngram_model_t *kt = ngram_model_read(ps_get_config(ps), path, NGRAM_ARPA, ps_get_logmath(ps));
	if (kt == NULL)
		return -1;
	// The set frees its models when it is freed, so it gets its own reference to the base.
	ngram_model_t *models[2] = { ngram_model_retain(base), kt };
	char *names[2] = { "base", "keyterms" };
	float32 weights[2] = { 1 - weight, weight };
	ngram_model_t *set = ngram_model_set_init(ps_get_config(ps), models, names, weights, 2);
	if (set == NULL) {
		ngram_model_free(models[0]);
		ngram_model_free(kt);
		return -1;
	}
	int rv = ps_set_lm(ps, "keyterms", set); // the search holds its own reference
	ngram_model_free(set);
	if (rv != 0)
		return -1;
	return ps_set_search(ps, "keyterms");
}

// timbre_ps_plain goes back to the decoder's own language model.
static void timbre_ps_plain(ps_decoder_t *ps) {
	if (strcmp(ps_get_search(ps), "_default") != 0) {
		ps_set_search(ps, "_default");
		ps_unset_search(ps, "keyterms");
	}
}

// timbre_ps_in_dict says whether the dictionary knows word.
static int timbre_ps_in_dict(ps_decoder_t *ps, const char *word) {
	char *phones = ps_lookup_word(ps, word);
	if (phones == NULL)
		return 0;
	free(phones);
	return 1;
}

// timbre_ps_add_words adds n words with their pronunciations (ARPAbet phones separated by
// spaces) to the decoder's dictionary only. ps_add_word also puts each word, as a unigram, in
// the language model of every n-gram search the decoder holds, and pocketsphinx cannot take it
// out again; so the language-model search is taken down first (its model kept) and built again
// afterwards from the same model, which then still lacks the words. The decoder must be on its
// language-model search, with no other search set. Returns how many words were added, or -1
// when the search could not be built again (the decoder is unusable).
static int timbre_ps_add_words(ps_decoder_t *ps, char **words, char **phones, int n) {
	ngram_model_t *lm = ps_get_lm(ps, "_default");
	if (lm == NULL)
		return -1;
	ngram_model_retain(lm);
	ps_unset_search(ps, "_default");
	int added = 0;
	for (int i = 0; i < n; i++)
		if (ps_add_word(ps, words[i], phones[i], FALSE) >= 0)
			added++;
	int rv = ps_set_lm(ps, "_default", lm); // the search holds its own reference
	ngram_model_free(lm);
	if (rv != 0 || ps_set_search(ps, "_default") != 0)
		return -1;
	return added;
}

// timbre_seg_prob is a segment's log posterior probability (in the decoder's log base).
static int32 timbre_seg_prob(ps_seg_t *seg) {
	int32 ascr, lscr, lback;
	return ps_seg_prob(seg, &ascr, &lscr, &lback);
}

// timbre_ps_align makes the decoder's next utterances follow a grammar of the n words in order
// (a forced alignment; silence and noise fillers may come between any two). With open set the
// utterance may end after any word, so a stretch of audio can be aligned to the start of the
// text that remains. The grammar search runs without the lattice pass (-bestpath), which
// doubles its time on long audio and changes no word's time.
static int timbre_ps_align(ps_decoder_t *ps, char **words, int n, int open) {
	cmd_ln_t *cfg = ps_get_config(ps);
	fsg_model_t *fsg = fsg_model_init("align", ps_get_logmath(ps), cmd_ln_float32_r(cfg, "-lw"), n + 1);
	fsg->start_state = 0;
	fsg->final_state = n;
	for (int i = 0; i < n; i++) {
		fsg_model_trans_add(fsg, i, i + 1, 0, fsg_model_word_add(fsg, words[i]));
		if (open && i > 0)
			fsg_model_null_trans_add(fsg, i, n, 0);
	}
	cmd_ln_set_boolean_r(cfg, "-bestpath", FALSE);
	int rv = ps_set_fsg(ps, "align", fsg); // the search keeps its own reference
	cmd_ln_set_boolean_r(cfg, "-bestpath", TRUE);
	fsg_model_free(fsg);
	if (rv != 0)
		return -1;
	return ps_set_search(ps, "align");
}

// timbre_ps_align_done goes back to the language model and drops the alignment grammar.
static void timbre_ps_align_done(ps_decoder_t *ps) {
	ps_set_search(ps, "_default");
	ps_unset_search(ps, "align");
}

// timbre_seg_ascr is a segment's acoustic score (in the decoder's log base; ≤ 0, as senone
// scores are normalised to the best senone of each frame).
static int32 timbre_seg_ascr(ps_seg_t *seg) {
	int32 ascr, lscr, lback;
	ps_seg_prob(seg, &ascr, &lscr, &lback);
	return ascr;
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode"
	"unsafe"
)

// PocketsphinxModelDir is where Debian's pocketsphinx-en-us installs the US English model.
const PocketsphinxModelDir = "/usr/share/pocketsphinx/model/en-us"

// PocketsphinxConfig configures the embedded recognizer.
type PocketsphinxConfig struct {
	ModelDir string // holds en-us/ (acoustic model), en-us.lm.bin and cmudict-en-us.dict; default PocketsphinxModelDir
	// Workers is how many decoders may run at once (each holds its own copy of the models, about
	// 100 MB resident, as the pocketsphinx_batch process); default one per CPU. Decoders are
	// loaded on first use.
	Workers int
}

// Pocketsphinx is the embedded English recognizer: CMU pocketsphinx through cgo. A decoder is
// not safe for concurrent use, so it keeps a pool of them; long audio is cut at pauses
// (splitPieces) and the pieces are decoded in parallel.
type Pocketsphinx struct {
	hmm, lm, dict string               // model paths
	slots         chan struct{}        // one token per decoder that may exist
	idle          chan *C.ps_decoder_t // loaded decoders not in use

	mu       sync.Mutex
	all      []*C.ps_decoder_t
	broken   map[*C.ps_decoder_t]bool // decoders to free on release (addWords failed)
	closed   bool
	loadTime time.Duration // of the last decoder loaded
	fresh    freshState    // a decoder's state just after loading (the same for all: one model)
}

var psQuietOnce sync.Once

// NewPocketsphinx checks that the model files exist; no decoder is loaded until the first
// transcription needs one (loading takes seconds: 2.3–5.5 s measured on a busy 2-core machine;
// see LoadTime).
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
		hmm: hmm, lm: lm, dict: dict,
		slots: make(chan struct{}, cfg.Workers),
		idle:  make(chan *C.ps_decoder_t, cfg.Workers),
	}, nil
}

// searchSettings are where the decoders' search departs from pocketsphinx's defaults (and so
// from the pocketsphinx_batch command's). -maxhmmpf caps the HMMs kept active in a frame (default
// 30,000). Counted with callgrind (instructions: this VM's CPU time varies by ±15 % from run to
// run) on 11 s of Harvard sentences cut as Transcribe cuts them, a cap of 6,000 decodes with 5 %
// fewer instructions, 4,000 with 9 %, 3,000 with 13 %. The word error rates: at 6,000 the
// default's (26.28 % on the 40 Harvard sentences by each flite voice; 28.12 %, the command's, in
// TestPocketsphinxWERNotWorseThanCommand), at 5,000 0.63 points worse in that test, at 4,000 0.24
// worse on the 160 sentences. Narrower beams (-beam, -pbeam 1e-40) and fewer Gaussians (-topn 2,
// -ds 2) cost 1.6–13 points. On BenchmarkPocketsphinxTranscribe's 36 s, the pieces decode in 2 %
// fewer instructions than the command decoding the whole file (18.4 against 18.8 billion, model
// loading excluded); half of either is the Gaussian mixtures (ptm_mgau_frame_eval). These rates
// were measured while decoders carried state from one utterance to the next (see refresh); with
// every utterance decoded as on a fresh decoder, the 160 sentences give 26.20 % (the command
// 26.12 %), that test's 40 give 29.38 % (28.12 %).
var searchSettings = []string{"-maxhmmpf", "6000"}

// keytermWeight is the keyterm model's share of the interpolated language model: enough to
// lift a keyterm over similar-sounding common words, little enough not to hear keyterms in
// every silence.
const keytermWeight = 0.05

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
	settings := append([]string{"-hmm", p.hmm, "-lm", p.lm, "-dict", p.dict, "-remove_silence", "no"}, searchSettings...)
	argv := (**C.char)(C.malloc(C.size_t(len(settings)) * C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(argv))
	args := unsafe.Slice(argv, len(settings))
	for i, a := range settings {
		args[i] = C.CString(a)
		defer C.free(unsafe.Pointer(args[i]))
	}
	ps := C.timbre_ps_new(C.int(len(settings)), argv)
	if ps == nil {
		return nil, errors.New("pocketsphinx: cannot load the model")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.loadTime = time.Since(t0)
	p.all = append(p.all, ps)
	if p.fresh.mean == nil {
		mean := make([]C.mfcc_t, C.timbre_ps_cepsize(ps))
		if len(mean) > 0 {
			if cmn := C.timbre_ps_state(ps, &mean[0]); cmn >= 0 {
				p.fresh = freshState{cmn: cmn, mean: mean}
			}
		}
	}
	return ps, nil
}

// freshState is what timbre_ps_fresh restores: the CMN type and the live cepstral mean.
type freshState struct {
	cmn  C.int
	mean []C.mfcc_t // nil: the model has no CMN
}

// refresh makes ps decode its next utterance as a decoder just loaded would (timbre_ps_fresh):
// a transcript must not depend on which decoder the pool hands out.
func (p *Pocketsphinx) refresh(ps *C.ps_decoder_t) error {
	p.mu.Lock()
	f := p.fresh
	p.mu.Unlock()
	var mean *C.mfcc_t
	if f.mean != nil {
		mean = &f.mean[0]
	}
	if C.timbre_ps_fresh(ps, f.cmn, mean) < 0 {
		return errors.New("pocketsphinx: cannot start a stream")
	}
	return nil
}

// decode decodes one whole utterance of samples (not empty) with ps, as on a decoder just
// loaded (refresh), for its search to read.
func (p *Pocketsphinx) decode(ps *C.ps_decoder_t, data []int16) error {
	if err := p.refresh(ps); err != nil {
		return err
	}
	if C.timbre_ps_decode(ps, (*C.int16)(unsafe.Pointer(&data[0])), C.size_t(len(data))) < 0 {
		return errors.New("pocketsphinx: decoding failed")
	}
	return nil
}

// release gives a decoder back to the pool, or frees it when it is broken (addWords): its slot
// is then free for a fresh decoder, loaded on next use.
func (p *Pocketsphinx) release(ps *C.ps_decoder_t) {
	p.mu.Lock()
	if !p.broken[ps] {
		p.mu.Unlock()
		p.idle <- ps
		return
	}
	delete(p.broken, ps)
	for i, d := range p.all {
		if d == ps {
			p.all = append(p.all[:i], p.all[i+1:]...)
			break
		}
	}
	p.mu.Unlock()
	C.ps_free(ps)
	<-p.slots
}

// addWords gives the words (grammarWord form) that ps's dictionary lacks a pronunciation from
// espeak-ng's letter-to-sound rules (Pronounce), in the decoder's dictionary only (see
// timbre_ps_add_words): its language model stays as it was, so a later plain transcription on
// this decoder cannot hear them, and a later grammar or keyterm model that names them finds a
// real pronunciation, which is harmless. The decoder's dictionary thus grows by the words
// requests have needed (a few dozen bytes each). Rebuilding the language-model search costs
// about 0.4 s per request that adds words (TestG2PWordsStayOutOfTheLanguageModel); a word a
// decoder has learnt costs nothing the next time. Words espeak cannot read (or an espeak-ng
// without its data) stay unknown. Should the search not come back, the request fails or goes on
// without it (alignment needs only its grammar) and the decoder is freed on release.
func (p *Pocketsphinx) addWords(ps *C.ps_decoder_t, words []string) {
	var cws, cps []*C.char
	seen := map[string]bool{}
	for _, w := range words {
		if w == "" || seen[w] || inDict(ps, w) {
			continue
		}
		seen[w] = true
		phones, err := Pronounce(w)
		if err != nil || phones == "" {
			continue
		}
		cws, cps = append(cws, C.CString(w)), append(cps, C.CString(phones))
	}
	if len(cws) == 0 {
		return
	}
	n := len(cws)
	// The arrays of pointers live in C memory: cgo forbids passing Go memory holding pointers.
	size := C.size_t(n) * C.size_t(unsafe.Sizeof(uintptr(0)))
	aw, ap := (**C.char)(C.malloc(size)), (**C.char)(C.malloc(size))
	copy(unsafe.Slice(aw, n), cws)
	copy(unsafe.Slice(ap, n), cps)
	rv := C.timbre_ps_add_words(ps, aw, ap, C.int(n))
	C.free(unsafe.Pointer(aw))
	C.free(unsafe.Pointer(ap))
	for i := range cws {
		C.free(unsafe.Pointer(cws[i]))
		C.free(unsafe.Pointer(cps[i]))
	}
	if rv < 0 {
		p.mu.Lock()
		if p.broken == nil {
			p.broken = map[*C.ps_decoder_t]bool{}
		}
		p.broken[ps] = true
		p.mu.Unlock()
	}
}

// inDict says whether ps's dictionary knows word.
func inDict(ps *C.ps_decoder_t, word string) bool {
	cw := C.CString(word)
	defer C.free(unsafe.Pointer(cw))
	return C.timbre_ps_in_dict(ps, cw) != 0
}

// closeWait is how long Close waits for decoders still in use (a real-time session whose
// connection is closing) before leaving them unfreed.
const closeWait = 10 * time.Second

// Close frees the decoders once they are back from the transcriptions and sessions using them;
// one still in use after closeWait is left allocated rather than freed under its user.
func (p *Pocketsphinx) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	timeout := time.After(closeWait)
	for range p.all {
		select {
		case ps := <-p.idle:
			C.ps_free(ps)
		case <-timeout:
		}
	}
	p.all = nil
}

// Transcribe implements Recognizer. The audio is cut at pauses and the pieces are decoded by up
// to Workers decoders at once; each piece is one utterance, so cancelling ctx takes effect
// between pieces (a piece is at most 30 s of audio). Confidences are the words' posterior
// probabilities in the decoder's word lattice. Keyterms bias the language model: for this
// transcription it is interpolated with a small model of the keyterms' words and word pairs
// (keytermARPA), so they are more likely to be heard; words the pronunciation dictionary lacks
// (cmudict, about 134,000 words) get a pronunciation from espeak-ng's letter-to-sound rules in
// the decoder's dictionary (Pronounce, addWords), so they can be heard too
// (TestKeytermUnknownWord). The interpolated model is slower: measured on Harvard sentences,
// about 2 s to set up per decoder and twice the decoding time. Language must be empty or English; the transcript's language is English with
// probability 1 (the engine knows no other, so it detects nothing).
func (p *Pocketsphinx) Transcribe(ctx context.Context, pcm PCM, opts TranscribeOptions) (*Transcript, error) {
	if l := BaseLanguage(opts.Language); l != "" && l != "en" {
		return nil, &UnsupportedLanguageError{Language: opts.Language, Supported: p.Languages()}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if pcm.SampleRate <= 0 {
		return nil, fmt.Errorf("pocketsphinx: invalid sample rate %d", pcm.SampleRate)
	}
	pcm = toRecognitionRate(pcm)
	pieces := splitPiecesFor(pcm.Samples, pcm.SampleRate, p.Workers())
	results := make([][]TranscriptWord, len(pieces))
	errs := make([]error, len(pieces))

	var keyterms *C.char // the path of the keyterm model, when there is one
	if arpa := keytermARPA(opts.Keyterms); arpa != "" {
		path, err := writeTemp("timbre-keyterms-*.arpa", arpa)
		if err != nil {
			return nil, err
		}
		defer os.Remove(path)
		keyterms = C.CString(path)
		defer C.free(unsafe.Pointer(keyterms))
	}

	// One goroutine per decoder that may run, each holding a decoder and taking the next
	// piece until none is left: pieces finish in any order but results keep theirs.
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range min(p.Workers(), len(pieces)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ps, err := p.acquire(ctx)
			if err != nil {
				errs[w] = err
				return
			}
			defer p.release(ps)
			if keyterms != nil {
				p.addWords(ps, keytermWords(opts.Keyterms))
				if C.timbre_ps_keyterms(ps, keyterms, keytermWeight) != 0 {
					errs[w] = errors.New("pocketsphinx: cannot load the keyterms")
					return
				}
				defer C.timbre_ps_plain(ps)
			}
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
				results[i], errs[i] = p.decodePiece(ps, pcm, pieces[i])
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

// setKeyterms makes ps use its language model interpolated with a model of keyterms (see
// keytermARPA) until plainLM; no keyterms leave it as it is. restore is nil when nothing changed.
func (p *Pocketsphinx) setKeyterms(ps *C.ps_decoder_t, keyterms []string) (restore func(), err error) {
	arpa := keytermARPA(keyterms)
	if arpa == "" {
		return nil, nil
	}
	p.addWords(ps, keytermWords(keyterms))
	path, err := writeTemp("timbre-keyterms-*.arpa", arpa)
	if err != nil {
		return nil, err
	}
	defer os.Remove(path)
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if C.timbre_ps_keyterms(ps, cpath, keytermWeight) != 0 {
		return nil, errors.New("pocketsphinx: cannot load the keyterms")
	}
	return func() { C.timbre_ps_plain(ps) }, nil
}

// decodePiece decodes the piece pc of pcm with ps and returns its words with times from the
// start of pcm.
func (p *Pocketsphinx) decodePiece(ps *C.ps_decoder_t, pcm PCM, pc piece) ([]TranscriptWord, error) {
	data := pc.samples(pcm.Samples)
	if len(data) == 0 {
		return nil, nil
	}
	if err := p.decode(ps, data); err != nil {
		return nil, err
	}
	rate := float64(pcm.SampleRate)
	// at is the time in the audio of the decoder's frame f.
	return utteranceWords(ps, func(f C.int, end bool) float64 {
		return float64(pc.origin(int(float64(f)*rate/frameRate(ps)), end)) / rate
	}), nil
}

func frameRate(ps *C.ps_decoder_t) float64 { return float64(C.timbre_ps_frate(ps)) }

// utteranceWords are the words of the utterance ps decoded last, with times at(frame, end)
// and their posterior probabilities.
func utteranceWords(ps *C.ps_decoder_t, at func(f C.int, end bool) float64) []TranscriptWord {
	base := frameBase(ps)
	lmath := C.ps_get_logmath(ps)
	var words []TranscriptWord
	// The iterator walks the best path of the word lattice, with posteriors (nil: no words).
	for seg := C.ps_seg_iter(ps); seg != nil; seg = C.ps_seg_next(seg) {
		word := sphinxWord(C.GoString(C.ps_seg_word(seg)))
		if word == "" {
			continue
		}
		var sf, ef C.int
		C.ps_seg_frames(seg, &sf, &ef)
		sf, ef = sf-base, ef-base
		logprob := float64(C.logmath_log_to_ln(lmath, C.timbre_seg_prob(seg)))
		words = append(words, TranscriptWord{
			Text:    word,
			Start:   at(sf, false),
			End:     at(ef+1, true), // ef is the word's last frame
			Logprob: min(logprob, 0),
		})
	}
	return words
}

// frameBase is the frame number the last utterance's segments start from. Measured: once a
// decoder has searched a live utterance (a real-time session), its segments go on numbering
// frames from its earlier utterances, batch ones included; the last segment ends on the
// utterance's last frame, which gives the base.
func frameBase(ps *C.ps_decoder_t) C.int {
	n := C.int(C.ps_get_n_frames(ps))
	last := C.int(-1)
	for seg := C.ps_seg_iter(ps); seg != nil; seg = C.ps_seg_next(seg) {
		var sf, ef C.int
		C.ps_seg_frames(seg, &sf, &ef)
		last = max(last, ef)
	}
	if n <= 0 || last < n {
		return 0
	}
	return last - (n - 1)
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

// keytermWords are the distinct words of the keyterms, as keytermARPA has them, in the form the
// dictionary has words (grammarWord).
func keytermWords(keyterms []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range keyterms {
		for _, w := range strings.FieldsFunc(strings.ToLower(k), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
		}) {
			if g := grammarWord(w); g == w && !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// keytermARPA is a language model of the keyterms in ARPA format: their words as equally likely
// unigrams, and each pair of neighbours in a phrase as a likely bigram. "" when there are no
// words.
func keytermARPA(keyterms []string) string {
	var words []string
	seen := map[string]bool{}
	bigrams := map[[2]string]bool{}
	var pairs [][2]string
	for _, k := range keyterms {
		ws := strings.FieldsFunc(strings.ToLower(k), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
		})
		for i, w := range ws {
			if !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
			if i > 0 && !bigrams[[2]string{ws[i-1], w}] {
				bigrams[[2]string{ws[i-1], w}] = true
				pairs = append(pairs, [2]string{ws[i-1], w})
			}
		}
	}
	if len(words) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\\data\\\nngram 1=%d\n", len(words)+2)
	if len(pairs) > 0 {
		fmt.Fprintf(&b, "ngram 2=%d\n", len(pairs))
	}
	uni := math.Log10(1 / float64(len(words)+1)) // the words and </s>
	fmt.Fprintf(&b, "\n\\1-grams:\n-99 <s> 0\n%.4f </s>\n", uni)
	for _, w := range words {
		fmt.Fprintf(&b, "%.4f %s 0\n", uni, w)
	}
	if len(pairs) > 0 {
		b.WriteString("\n\\2-grams:\n")
		for _, p := range pairs {
			fmt.Fprintf(&b, "-0.3010 %s %s\n", p[0], p[1])
		}
	}
	b.WriteString("\n\\end\\\n")
	return b.String()
}

// writeTemp writes content to a new temporary file and returns its path.
func writeTemp(pattern, content string) (string, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

var _ Aligner = (*Pocketsphinx)(nil)

// Align implements Aligner with a pocketsphinx grammar search. The words the dictionary knows
// become a grammar that accepts exactly them in order (silence and noise fillers may come between
// any two). The audio is cut at pauses into pieces of 4–30 s (splitPieces, as for
// transcription) and aligned piece by piece: each piece against a grammar of the words not yet
// placed (at most twice as many as its share of the audio suggests, plus alignSlack) that may
// end after any word, so the search itself finds where the piece's speech ends in the text (in
// the last piece too: text the audio never reaches stays unheard rather than being squeezed
// into the last words' time, TestAlignTextBeyondAudio). One grammar over the whole audio takes time growing
// faster than the audio (measured on flite speech: 2 minutes aligned 39× faster than real time,
// 10 minutes only 16×); in pieces, 10 minutes align 49× faster than real time with the same
// boundary error, and memory stays at the decoder's (BenchmarkAlign: 2 minutes, 74×).
//
// A word's Loss is its acoustic cost per 10 ms frame in nats: −ln of the likelihood of its
// frames under its phones, relative to the best-scoring senone of each frame, divided by its
// frames (0 = every frame fits the word as well as any sound of the model could). Measured on
// flite speech: about 1.1 for the words really spoken, about 4 (words unheard included) when the
// text is another sentence (TestAlignLossTellsWrongText).
//
// Words missing from the dictionary (cmudict, about 134,000 words; pocketsphinx 5prealpha has no
// grapheme-to-phoneme converter) get a pronunciation from espeak-ng's letter-to-sound rules
// mapped to the model's phones (Pronounce), in this decoder's dictionary only (addWords), and are
// aligned like any other word (TestAlignInventedWords). Words still without one (espeak reads
// no sound in them) are left out of the grammar, and words the search could not place (the
// audio does not contain them) stay unheard: both get the gap between their placed neighbours
// (spreadUnheard).
func (p *Pocketsphinx) Align(ctx context.Context, pcm PCM, words []string) ([]AlignedWord, error) {
	if pcm.SampleRate <= 0 {
		return nil, fmt.Errorf("pocketsphinx: invalid sample rate %d", pcm.SampleRate)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pcm = toRecognitionRate(pcm)
	out := make([]AlignedWord, len(words))
	for i, w := range words {
		out[i].Text = w
	}
	ps, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer p.release(ps)

	gws := make([]string, len(words))
	for i, w := range words {
		gws[i] = grammarWord(w)
	}
	p.addWords(ps, gws)  // words the dictionary lacks, pronounced by espeak-ng
	var grammar []string // the words the dictionary knows, and where they are in words
	var at []int
	for i, g := range gws {
		if g != "" && inDict(ps, g) {
			grammar, at = append(grammar, g), append(at, i)
		}
	}
	pieces := splitPieces(pcm.Samples, pcm.SampleRate)
	left := 0 // samples of audio in the pieces not yet aligned
	for _, pc := range pieces {
		left += pc.End - pc.Start
	}
	k := 0 // the next grammar word to place
	for i, pc := range pieces {
		if k == len(grammar) {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		last := i == len(pieces)-1
		n := len(grammar) - k
		if !last {
			share := float64(n) * float64(pc.End-pc.Start) / float64(left)
			n = min(n, int(2*share)+alignSlack)
		}
		left -= pc.End - pc.Start
		placed, err := p.alignPiece(ps, pcm, pc, grammar[k:k+n], true)
		if err != nil {
			return nil, err
		}
		for _, w := range placed {
			o := &out[at[k+w.index]]
			o.Start, o.End, o.Loss, o.Heard = min(w.start, pcm.Seconds()), min(w.end, pcm.Seconds()), w.loss, true
		}
		if len(placed) > 0 {
			k += placed[len(placed)-1].index + 1
		}
	}
	spreadUnheard(out, pcm.Seconds())
	return out, nil
}

// alignSlack is how many words beyond twice its share a piece's grammar offers (speech is not
// spread evenly over the audio).
const alignSlack = 30

// senscrShift is pocketsphinx's SENSCR_SHIFT: senone (acoustic) scores are stored in units of
// 2^senscrShift steps of the decoder's log base.
const senscrShift = 10

// placedWord is a grammar word the search placed in a piece.
type placedWord struct {
	index            int // in the piece's grammar
	start, end, loss float64
}

// alignPiece aligns the piece pc of pcm to words (a prefix of them when open).
func (p *Pocketsphinx) alignPiece(ps *C.ps_decoder_t, pcm PCM, pc piece, words []string, open bool) ([]placedWord, error) {
	data := pc.samples(pcm.Samples)
	if len(data) == 0 || len(words) == 0 {
		return nil, nil
	}
	cwords := make([]*C.char, len(words))
	for i, w := range words {
		cwords[i] = C.CString(w)
		defer C.free(unsafe.Pointer(cwords[i]))
	}
	// The array of pointers lives in C memory: cgo forbids passing Go memory holding pointers.
	arr := (**C.char)(C.malloc(C.size_t(len(words)) * C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(arr))
	copy(unsafe.Slice(arr, len(words)), cwords)
	var openFlag C.int
	if open {
		openFlag = 1
	}
	rv := C.timbre_ps_align(ps, arr, C.int(len(words)), openFlag)
	defer C.timbre_ps_align_done(ps)
	if rv != 0 {
		return nil, errors.New("pocketsphinx: cannot build the alignment grammar")
	}
	if err := p.decode(ps, data); err != nil {
		return nil, err
	}
	rate := float64(pcm.SampleRate)
	frameRate := float64(C.timbre_ps_frate(ps))
	at := func(f C.int, end bool) float64 {
		return float64(pc.origin(int(float64(f)*rate/frameRate), end)) / rate
	}
	lnPerUnit := float64(C.logmath_log_to_ln(C.ps_get_logmath(ps), 1)) // ln of the log base
	var placed []placedWord
	k := 0
	for seg := C.ps_seg_iter(ps); seg != nil && k < len(words); seg = C.ps_seg_next(seg) {
		w := sphinxWord(C.GoString(C.ps_seg_word(seg)))
		if w == "" {
			continue
		}
		j := k // the grammar is linear, so the path's words are its words in order
		for j < len(words) && words[j] != w {
			j++
		}
		if j == len(words) {
			continue
		}
		var sf, ef C.int
		C.ps_seg_frames(seg, &sf, &ef)
		frames := max(float64(ef-sf+1), 1)
		// Acoustic scores are kept SENSCR_SHIFT (10) bits coarser than the log base.
		ascr := float64(C.timbre_seg_ascr(seg)) * (1 << senscrShift) * lnPerUnit
		placed = append(placed, placedWord{index: j, start: at(sf, false), end: at(ef+1, true), loss: max(-ascr/frames, 0)})
		k = j + 1
	}
	return placed, nil
}
