package engine

/*
#cgo CFLAGS: -I/usr/include/flite
#cgo LDFLAGS: -lflite_cmu_us_slt -lflite_cmu_us_awb -lflite_cmu_us_rms -lflite_cmu_us_kal16 -lflite_usenglish -lflite_cmulex -lflite -lm
#include <stdlib.h>
#include <string.h>
#include <flite/flite.h>
#include <flite/cst_cg.h>

cst_voice *register_cmu_us_slt(const char *voxdir);
cst_voice *register_cmu_us_awb(const char *voxdir);
cst_voice *register_cmu_us_rms(const char *voxdir);
cst_voice *register_cmu_us_kal16(const char *voxdir);

// timbre_base_f0 is the voice's own F0 mean (stddev when want_stddev): diphone voices set it as
// a voice feature; clustergen voices default to their model's statistics.
static float timbre_base_f0(cst_voice *v, int want_stddev) {
	const char *name = want_stddev ? "int_f0_target_stddev" : "int_f0_target_mean";
	if (feat_present(v->features, name))
		return feat_float(v->features, name);
	if (feat_present(v->features, "cg_db")) {
		const cst_cg_db *db = val_cg_db(feat_val(v->features, "cg_db"));
		return want_stddev ? db->f0_stddev : db->f0_mean;
	}
	return 0;
}

// timbre_base_stretch is the voice's own duration_stretch (kal16 speaks at 1.1): a request's
// rate scales it rather than replacing it, so rate 1 is the voice's normal pace.
static float timbre_base_stretch(cst_voice *v) {
	if (feat_present(v->features, "duration_stretch"))
		return feat_float(v->features, "duration_stretch");
	return 1;
}

// timbre_lex_with is a copy of the voice's lexicon whose run-time addenda are the entries of
// addenda (one "word : phone phone" a line); the voice's own lexicon is never modified, so
// concurrent syntheses each see only their own entries. Free with timbre_lex_free.
static cst_lexicon *timbre_lex_with(cst_voice *v, const char *addenda) {
	const cst_lexicon *base = val_lexicon(feat_val(v->features, "lexicon"));
	cst_lexicon *lex = cst_alloc(cst_lexicon, 1);
	*lex = *base;
	cst_val *entries = NULL;
	char *copy = cst_strdup(addenda), *save = NULL;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cst_val *e = cst_lex_make_entry(base, line);
		if (e)
			entries = cons_val(e, entries);
	}
	cst_free(copy);
	lex->lex_addenda = val_reverse(entries);
	return lex;
}

static void timbre_lex_free(cst_lexicon *lex) {
	if (lex == NULL)
		return;
	if (lex->lex_addenda)
		delete_val(lex->lex_addenda);
	cst_free(lex);
}

// timbre_lex_has_phone tells whether the voice's lexicon has the phone (cst_lex_make_entry
// prints to stdout and drops a phone it lacks: callers check first).
static int timbre_lex_has_phone(cst_voice *v, const char *phone) {
	const cst_lexicon *lex = val_lexicon(feat_val(v->features, "lexicon"));
	for (int i = 0; lex->phone_table[i]; i++)
		if (strcmp(lex->phone_table[i], phone) == 0)
			return 1;
	return 0;
}

// timbre_synth is flite_synth_text with per-utterance prosody (and lexicon, when lex is not
// NULL): features set on the utterance override the voice's (utt_init links, not copies, the
// voice features), so the shared voice object is never modified.
static cst_utterance *timbre_synth(const char *text, cst_voice *v, float stretch, float f0_mean, float f0_stddev, cst_lexicon *lex) {
	cst_utterance *u = new_utterance();
	utt_set_input_text(u, text);
	utt_init(u, v);
	feat_set_float(u->features, "duration_stretch", stretch);
	if (f0_mean > 0)
		feat_set_float(u->features, "int_f0_target_mean", f0_mean);
	if (f0_stddev >= 0)
		feat_set_float(u->features, "int_f0_target_stddev", f0_stddev);
	if (lex != NULL)
		feat_set(u->features, "lexicon", lexicon_val(lex));
	if (utt_synth(u) == NULL) {
		delete_utterance(u);
		return NULL;
	}
	return u;
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"unsafe"

	"timbre/internal/audio"
)

// flite synthesizes concurrently: once the voices are registered, an utterance only reads the
// shared voice, lexicon and model data, provided prosody is set on the utterance rather than on
// the voice (timbre_synth). Checked with valgrind --tool=helgrind: three threads, three voices,
// varied text, prosody features and word-time lookups gave no data race. Registration (not
// thread-safe) happens once under fliteInitOnce. flite still calls exit() on internal errors;
// NewFlitePool isolates that in worker processes.
var (
	fliteInitOnce sync.Once
	fliteVoices   map[string]*fliteVoice
	fliteInitErr  error
)

type fliteVoice struct {
	info             VoiceInfo
	v                *C.cst_voice
	f0Mean, f0Stddev float64
	stretch          float64  // the voice's own duration_stretch
	phones           sync.Map // phone → bool: in the voice's lexicon
}

// The voices flite1-dev ships, in the order Voices lists them.
var fliteVoiceOrder = []string{"slt", "awb", "rms", "kal16"}

// Feature paths, allocated once.
var (
	cWord      = C.CString("Word")
	cToken     = C.CString("Token")
	cSegment   = C.CString("Segment")
	cName      = C.CString("name")
	cWordStart = C.CString("R:SylStructure.daughter1.daughter1.R:Segment.p.end")
	cWordEnd   = C.CString("R:SylStructure.daughtern.daughtern.R:Segment.end")
)

// Flite is the in-process flite synthesizer (English); it runs syntheses in parallel.
type Flite struct{}

// NewFlite initializes flite and registers its voices (once per process).
func NewFlite() (*Flite, error) {
	fliteInitOnce.Do(func() {
		C.flite_init()
		fliteVoices = map[string]*fliteVoice{}
		for _, name := range fliteVoiceOrder {
			var v *C.cst_voice
			gender := "male"
			switch name {
			case "slt":
				v, gender = C.register_cmu_us_slt(nil), "female"
			case "awb":
				v = C.register_cmu_us_awb(nil)
			case "rms":
				v = C.register_cmu_us_rms(nil)
			case "kal16":
				v = C.register_cmu_us_kal16(nil)
			}
			if v == nil {
				fliteInitErr = fmt.Errorf("flite: cannot register voice %s", name)
				return
			}
			fliteVoices[name] = &fliteVoice{
				info:     VoiceInfo{Name: name, Languages: []string{"en"}, Gender: gender},
				v:        v,
				f0Mean:   float64(C.timbre_base_f0(v, 0)),
				f0Stddev: float64(C.timbre_base_f0(v, 1)),
				stretch:  float64(C.timbre_base_stretch(v)),
			}
		}
	})
	if fliteInitErr != nil {
		return nil, fliteInitErr
	}
	return &Flite{}, nil
}

var _ Synthesizer = (*Flite)(nil)

// Name implements Synthesizer.
func (*Flite) Name() string { return "flite" }

// Voices implements Synthesizer: slt (female, US), awb (male, Scottish), rms (male, US) and
// kal16 (male, US; a small diphone voice, much faster and more robotic).
func (*Flite) Voices(context.Context) ([]VoiceInfo, error) {
	out := make([]VoiceInfo, 0, len(fliteVoiceOrder))
	for _, name := range fliteVoiceOrder {
		vi := fliteVoices[name].info
		vi.Languages = []string{"en"}
		out = append(out, vi)
	}
	return out, nil
}

// Synthesize implements Synthesizer. Request.Voice empty means slt; Request.Language, if set,
// must be English. Cancelling ctx takes effect only before synthesis starts.
func (*Flite) Synthesize(ctx context.Context, req Request) (*Result, error) {
	name := strings.ToLower(req.Voice)
	if name == "" {
		name = "slt"
	}
	fv, ok := fliteVoices[name]
	if !ok {
		return nil, fmt.Errorf("%w: flite voice %q", ErrUnknownVoice, req.Voice)
	}
	if l := strings.ToLower(req.Language); l != "" && l != "en" && !strings.HasPrefix(l, "en-") && !strings.HasPrefix(l, "en_") {
		return nil, fmt.Errorf("%w: flite speaks only English, not %q", ErrUnknownVoice, req.Language)
	}
	p := req.Prosody.normalized()
	base := fv.f0Mean
	if p.F0Hz > 0 {
		base = p.F0Hz
	}
	// A formant scale k is synthesis at pitch/k and duration×k, played k times faster: every
	// resonance moves by k while pitch and duration come out as asked.
	k := formantRate(p.FormantScale(), 16000)
	f0Mean := base * math.Exp2(float64(p.Pitch-50)/100) / k // ±half an octave
	// 0 = monotone, 100 = twice the range; the range keeps its size in semitones at another pitch.
	f0Stddev := fv.f0Stddev * base / fv.f0Mean * float64(p.PitchRange) / 50 / k
	if fv.f0Stddev <= 0 {
		f0Stddev = -1 // unknown: leave the voice's own
	}
	text := req.Text
	var back []int
	ends := map[int]int{}
	var lex *C.cst_lexicon
	if len(req.Pronunciations) > 0 {
		// Each span becomes a made-up word whose lexicon entry is the span's phones.
		var addenda strings.Builder
		text, back = rewrite(text, req.Pronunciations, func(i int, pr Pronunciation) string {
			ends[pr.Start] = pr.End
			word := flitePlaceholder(i)
			addenda.WriteString(word + " :")
			for _, ph := range pr.Phones {
				ph = strings.ToLower(ph)
				if !fv.hasPhone(ph) {
					ph = strings.TrimRight(ph, "012") // a phone set without stress digits
				}
				if fv.hasPhone(ph) {
					addenda.WriteString(" " + ph)
				}
			}
			addenda.WriteByte('\n')
			return " " + word + " "
		})
		cadd := C.CString(addenda.String())
		lex = C.timbre_lex_with(fv.v, cadd)
		C.free(unsafe.Pointer(cadd))
		defer C.timbre_lex_free(lex)
	}
	ctext := C.CString(text)
	defer C.free(unsafe.Pointer(ctext))

	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The noise of the clustergen voices comes from C's rand(): seeded per request, the audio
	// depends on the request alone. (Pool workers synthesize one request at a time; in-process
	// syntheses running at once share rand() and are not repeatable.)
	C.srand(C.uint(req.Seed))
	u := C.timbre_synth(ctext, fv.v, C.float(fv.stretch/p.Rate*k), C.float(f0Mean), C.float(f0Stddev), lex)
	if u == nil {
		return nil, errors.New("flite: synthesis failed")
	}
	defer C.delete_utterance(u)

	var pcm PCM
	if w := C.utt_wave(u); w != nil && w.num_samples > 0 {
		pcm.SampleRate = int(w.sample_rate)
		// The voices are mono; take the first channel should one not be.
		all := unsafe.Slice((*int16)(unsafe.Pointer(w.samples)), int(w.num_samples)*int(w.num_channels))
		pcm.Samples = make([]int16, w.num_samples)
		for i := range pcm.Samples {
			pcm.Samples[i] = all[i*int(w.num_channels)]
		}
	} else {
		pcm.SampleRate = 16000
	}
	words := fliteWordMarks(text, u, pcm)
	if back != nil {
		words = mapWordsBack(words, back, ends)
	}
	if k != 1 {
		pcm, words = speedUp(pcm, words, k)
	}
	return &Result{Audio: pcm, Words: words, Phonemes: fliteSegments(u)}, nil
}

// flitePlaceholder is the made-up word standing for the i-th pronunciation: letters only, so
// that flite's tokenizer keeps it one word and looks it up.
func flitePlaceholder(i int) string {
	b := []byte("timbrepron")
	for {
		b = append(b, byte('a'+i%26))
		if i /= 26; i == 0 {
			return string(b)
		}
	}
}

// hasPhone tells whether the voice's lexicon has the phone (cached per voice).
func (fv *fliteVoice) hasPhone(ph string) bool {
	if v, ok := fv.phones.Load(ph); ok {
		return v.(bool)
	}
	c := C.CString(ph)
	has := C.timbre_lex_has_phone(fv.v, c) != 0
	C.free(unsafe.Pointer(c))
	fv.phones.Store(ph, has)
	return has
}

// fliteSegments are the phones of the utterance, pauses left out.
func fliteSegments(u *C.cst_utterance) []string {
	var out []string
	for s := C.relation_head(C.utt_relation(u, cSegment)); s != nil; s = C.item_next(s) {
		if name := C.GoString(C.item_feat_string(s, cName)); name != "pau" {
			out = append(out, name)
		}
	}
	return out
}

// formantRate rounds a formant scale to one whose sample-rate ratio resamples with a short
// polyphase filter (rate×k a multiple of 200 Hz).
func formantRate(k float64, rate int) float64 {
	if k == 1 {
		return 1
	}
	return math.Round(float64(rate)*k/200) * 200 / float64(rate)
}

// speedUp plays audio k times faster (pitch, resonances and tempo all move by k) by treating
// its samples as recorded at rate×k, and rescales the word times to match.
func speedUp(pcm PCM, words []WordMark, k float64) (PCM, []WordMark) {
	from := int(math.Round(float64(pcm.SampleRate) * k))
	pcm.Samples = audio.Resample(pcm.Samples, from, pcm.SampleRate)
	out := make([]WordMark, len(words))
	for i, w := range words {
		w.Start, w.End = w.Start/k, w.End/k
		out[i] = w
	}
	return pcm, out
}

// fliteWordMarks reads the words' times from the utterance: a word starts where the segment
// before its first segment ends and ends with its last segment. Each flite word belongs to a
// Token, the whitespace-separated text with punctuation stripped ("1990" is one token, two
// words), which is found in the text by scanning forward. Tokens flite changed beyond
// recognition are attached to the token before them.
func fliteWordMarks(text string, u *C.cst_utterance, pcm PCM) []WordMark {
	var times []wordTime
	cursor := 0
	var lastTok *C.cst_item
	var lastSpan span
	found := false
	total := pcm.Seconds()
	for w := C.relation_head(C.utt_relation(u, cWord)); w != nil; w = C.item_next(w) {
		start := min(float64(C.ffeature_float(w, cWordStart)), total)
		end := min(float64(C.ffeature_float(w, cWordEnd)), total)
		tok := C.item_parent(C.item_as(w, cToken))
		if tok != lastTok {
			lastTok = tok
			name := ""
			if tok != nil {
				name = C.GoString(C.item_feat_string(tok, cName))
			}
			// The token must be the next thing in the text but for spaces and punctuation.
			if i := strings.Index(text[cursor:], name); name != "" && i >= 0 &&
				strings.TrimFunc(text[cursor:cursor+i], isSpaceOrPunct) == "" {
				lastSpan = span{cursor + i, cursor + i + len(name)}
				cursor = lastSpan.End
				found = true
			}
		}
		// Unpronounced words (symbols such as "<") have no segments: their times read as 0.
		if !found || end <= start {
			continue
		}
		times = append(times, wordTime{span: lastSpan, start: start, end: end})
	}
	return wordMarksFromSpans(text, times, pcm)
}
