package engine

/*
#cgo LDFLAGS: -lespeak-ng
#include <stdlib.h>
#include <string.h>
#include <espeak-ng/speak_lib.h>

// Implemented in Go (espeakSynthCallback below).
extern int timbreEspeakCallback(short *wav, int numsamples, espeak_EVENT *events);

// Field access for the union and pointer arithmetic that are awkward from Go.
static espeak_EVENT *timbre_event_at(espeak_EVENT *ev, int i) { return ev + i; }
static const espeak_VOICE *timbre_voice_at(const espeak_VOICE **v, int i) { return v[i]; }
static const char *timbre_event_phoneme(espeak_EVENT *ev) { return ev->id.string; }
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// espeak-ng keeps all of its state in globals (espeak-ng issues #68, #1527): one synthesis at a
// time per process. espeakMu serializes every call into the library; espeakCur is the synthesis
// the callback is collecting for (only touched while espeakMu is held).
var (
	espeakMu         sync.Mutex
	espeakInitOnce   sync.Once
	espeakInitErr    error
	espeakSampleRate int
	espeakVoiceList  []espeakVoice
	espeakVariants   map[string]string // lower-case variant name → file name ("f3", "Alex")
	espeakCur        *espeakCollector
)

// espeakVoice is one language voice of espeak-ng's voice table.
type espeakVoice struct {
	info  VoiceInfo
	ident string         // the voice file's base name, as espeak_SetVoiceByName wants it ("en-US")
	langs map[string]int // espeak language tag ("en-us") → priority (lower is preferred)
}

// Espeak is the in-process espeak-ng synthesizer. Every Espeak shares the library's single global
// state, so syntheses run one at a time; use an EspeakPool to use several cores.
type Espeak struct{}

// NewEspeak initializes libespeak-ng (once per process) and returns the in-process synthesizer.
func NewEspeak() (*Espeak, error) {
	espeakInitOnce.Do(func() {
		espeakMu.Lock()
		defer espeakMu.Unlock()
		espeakInitErr = espeakInit()
	})
	if espeakInitErr != nil {
		return nil, espeakInitErr
	}
	return &Espeak{}, nil
}

func espeakInit() error {
	// DONT_EXIT: without it the library calls exit() when its data directory is missing.
	// PHONEME_EVENTS: the phonemes spoken are reported (Result.Phonemes).
	rate := C.espeak_Initialize(C.AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, C.espeakINITIALIZE_DONT_EXIT|C.espeakINITIALIZE_PHONEME_EVENTS)
	if rate <= 0 {
		return errors.New("espeak: espeak_Initialize failed (is espeak-ng-data installed?)")
	}
	espeakSampleRate = int(rate)
	C.espeak_SetSynthCallback((*C.t_espeak_callback)(C.timbreEspeakCallback))

	list := C.espeak_ListVoices(nil)
	for i := 0; ; i++ {
		v := C.timbre_voice_at(list, C.int(i))
		if v == nil {
			break
		}
		ident := C.GoString(v.identifier)
		// mb/ voices need the separately installed (and here unavailable) mbrola synthesizer.
		if strings.HasPrefix(ident, "mb/") || strings.HasPrefix(ident, "!v/") {
			continue
		}
		ev := espeakVoice{ident: ident[strings.LastIndexByte(ident, '/')+1:], langs: map[string]int{}}
		ev.info.Name = strings.ToLower(ev.ident)
		switch v.gender {
		case 1:
			ev.info.Gender = "male"
		case 2:
			ev.info.Gender = "female"
		}
		// languages: repeated (priority byte, NUL-terminated tag), ended by an empty tag.
		p := unsafe.Pointer(v.languages)
		for {
			prio := *(*byte)(p)
			if prio == 0 {
				break
			}
			tag := strings.ToLower(C.GoString((*C.char)(unsafe.Add(p, 1))))
			p = unsafe.Add(p, 2+len(tag))
			if tag == "" {
				break
			}
			ev.langs[tag] = int(prio)
			if code := isoCode(tag); !slices.Contains(ev.info.Languages, code) {
				ev.info.Languages = append(ev.info.Languages, code)
			}
		}
		if len(ev.info.Languages) == 0 || ev.info.Languages[0] == "variant" {
			continue
		}
		espeakVoiceList = append(espeakVoiceList, ev)
	}

	// Variants ("+f3") modify a language voice's pitch, formants and breathiness.
	espeakVariants = map[string]string{}
	lang := C.CString("variant")
	defer C.free(unsafe.Pointer(lang))
	spec := C.espeak_VOICE{languages: lang}
	list = C.espeak_ListVoices(&spec)
	for i := 0; ; i++ {
		v := C.timbre_voice_at(list, C.int(i))
		if v == nil {
			break
		}
		ident := C.GoString(v.identifier)
		name := ident[strings.LastIndexByte(ident, '/')+1:]
		espeakVariants[strings.ToLower(name)] = name
	}
	if len(espeakVoiceList) == 0 {
		return errors.New("espeak: no voices found")
	}
	return nil
}

// isoCode turns an espeak language tag into the language's ISO 639-1 code where there is one
// ("en-gb-x-rp" → "en", "cmn" → "zh"); other languages keep their (639-3) code.
func isoCode(tag string) string {
	base, _, _ := strings.Cut(tag, "-")
	switch base {
	case "cmn", "yue", "hak":
		return "zh"
	}
	return base
}

var _ Synthesizer = (*Espeak)(nil)

// Name implements Synthesizer.
func (*Espeak) Name() string { return "espeak" }

// SampleRate is the rate of the audio espeak-ng produces (22050 Hz).
func (*Espeak) SampleRate() int { return espeakSampleRate }

// Voices lists espeak-ng's language voices. Any voice can be combined with a variant, as
// "en-us+f3"; the variants are not listed separately.
func (*Espeak) Voices(context.Context) ([]VoiceInfo, error) {
	out := make([]VoiceInfo, len(espeakVoiceList))
	for i, v := range espeakVoiceList {
		out[i] = v.info
		out[i].Languages = slices.Clone(v.info.Languages)
	}
	return out, nil
}

// espeakVoiceName resolves a request to the name espeak_SetVoiceByName takes ("en-US+f3").
// Request.Voice is a voice name from Voices (or an espeak language tag) with an optional
// "+variant"; when it is empty, Request.Language picks the preferred voice for the language.
func espeakVoiceName(req Request) (string, error) {
	name, variant, hasVariant := strings.Cut(strings.TrimSpace(req.Voice), "+")
	name = strings.ToLower(name)
	var v *espeakVoice
	switch {
	case name != "":
		for i := range espeakVoiceList {
			if espeakVoiceList[i].info.Name == name {
				v = &espeakVoiceList[i]
				break
			}
		}
		if v == nil {
			v = espeakVoiceForLanguage(name) // "en-gb" names the voice in file "en"
		}
		if v == nil {
			return "", fmt.Errorf("%w: espeak voice %q", ErrUnknownVoice, req.Voice)
		}
	default:
		lang := strings.ToLower(strings.ReplaceAll(req.Language, "_", "-"))
		if lang == "" {
			lang = "en"
		}
		if v = espeakVoiceForLanguage(lang); v == nil {
			return "", fmt.Errorf("%w: no espeak voice for language %q", ErrUnknownVoice, req.Language)
		}
	}
	if !hasVariant {
		return v.ident, nil
	}
	file, ok := espeakVariants[strings.ToLower(variant)]
	if !ok {
		return "", fmt.Errorf("%w: espeak variant %q", ErrUnknownVoice, variant)
	}
	return v.ident + "+" + file, nil
}

// espeakVoiceForLanguage picks the voice espeak prefers for a language tag ("pt-br"), else for
// the tag's base language ("en-zz" → "en"), else a voice whose primary language it is.
func espeakVoiceForLanguage(lang string) *espeakVoice {
	byTag := func(tag string) *espeakVoice {
		var best *espeakVoice
		bestPrio := 1 << 30
		for i := range espeakVoiceList {
			if p, ok := espeakVoiceList[i].langs[tag]; ok && p < bestPrio {
				best, bestPrio = &espeakVoiceList[i], p
			}
		}
		return best
	}
	code := isoCode(lang)
	if v := byTag(lang); v != nil {
		return v
	}
	if v := byTag(code); v != nil {
		return v
	}
	for i := range espeakVoiceList {
		if espeakVoiceList[i].info.Languages[0] == code {
			return &espeakVoiceList[i]
		}
	}
	return nil
}

// espeakCollector gathers what the synth callback reports for one synthesis.
type espeakCollector struct {
	ctx      context.Context
	samples  []int16
	events   []espeakEvent
	phonemes []string
}

type espeakEvent struct {
	typ       int // espeakEVENT_WORD, _END, _MSG_TERMINATED
	pos, len  int // WORD: 1-based character position and length in characters
	audioMsec int
}

//export timbreEspeakCallback
func timbreEspeakCallback(wav *C.short, n C.int, events *C.espeak_EVENT) C.int {
	c := espeakCur
	if c == nil {
		return 1
	}
	if n > 0 && wav != nil {
		c.samples = append(c.samples, unsafe.Slice((*int16)(unsafe.Pointer(wav)), int(n))...)
	}
	for i := 0; ; i++ {
		ev := C.timbre_event_at(events, C.int(i))
		switch ev._type {
		case C.espeakEVENT_LIST_TERMINATED:
			if c.ctx.Err() != nil {
				return 1 // abort the synthesis
			}
			return 0
		case C.espeakEVENT_PHONEME:
			ph := C.timbre_event_phoneme(ev)
			c.phonemes = append(c.phonemes, C.GoStringN(ph, C.int(C.strnlen(ph, 8))))
		case C.espeakEVENT_WORD, C.espeakEVENT_END, C.espeakEVENT_MSG_TERMINATED:
			c.events = append(c.events, espeakEvent{
				typ: int(ev._type), pos: int(ev.text_position), len: int(ev.length),
				audioMsec: int(ev.audio_position),
			})
		}
	}
}

// Synthesize implements Synthesizer. Calls are serialized process-wide.
func (e *Espeak) Synthesize(ctx context.Context, req Request) (*Result, error) {
	espeakMu.Lock()
	defer espeakMu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	voice, err := espeakVoiceName(req)
	if err != nil {
		return nil, err
	}
	cvoice := C.CString(voice)
	defer C.free(unsafe.Pointer(cvoice))
	if rc := C.espeak_SetVoiceByName(cvoice); rc != C.EE_OK {
		return nil, fmt.Errorf("espeak: cannot load voice %q (error %d)", voice, int(rc))
	}
	// The parameters are global too, so every synthesis sets all of them.
	p := req.Prosody.normalized()
	C.espeak_SetParameter(C.espeakRATE, C.int(clampInt(int(175*p.Rate+0.5), C.espeakRATE_MINIMUM, C.espeakRATE_MAXIMUM)), 0)
	C.espeak_SetParameter(C.espeakPITCH, C.int(p.Pitch), 0)
	C.espeak_SetParameter(C.espeakRANGE, C.int(p.PitchRange), 0)

	col := &espeakCollector{ctx: ctx}
	espeakCur = col
	defer func() { espeakCur = nil }()
	text, flags := req.Text, C.uint(C.espeakCHARS_UTF8)
	var back []int
	ends := map[int]int{}
	if len(req.Pronunciations) > 0 {
		// Phoneme input: each span becomes [[mnemonics]]; "[[" the text itself has must not
		// start phoneme input, so it is read as "[ " (the same length: offsets keep).
		text = strings.ReplaceAll(text, "[[", "[ ")
		text, back = rewrite(text, req.Pronunciations, func(_ int, p Pronunciation) string {
			ends[p.Start] = p.End
			return "[[" + EspeakPhonemes(p.Phones) + "]]"
		})
		flags |= C.espeakPHONEMES
	}
	ctext := C.CString(text)
	defer C.free(unsafe.Pointer(ctext))
	rc := C.espeak_Synth(unsafe.Pointer(ctext), C.size_t(len(text)+1), 0, C.POS_CHARACTER, 0,
		flags, nil, nil)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if rc != C.EE_OK {
		return nil, fmt.Errorf("espeak: espeak_Synth failed (error %d)", int(rc))
	}
	pcm := PCM{Samples: col.samples, SampleRate: espeakSampleRate}
	words := espeakWordMarks(text, col.events, pcm)
	if back != nil {
		words = mapWordsBack(words, back, ends)
	}
	return &Result{Audio: pcm, Words: words, Phonemes: col.phonemes}, nil
}

// espeakWordMarks turns WORD events into word marks. A word ends where the next word or the
// clause (END event) starts, less any silence before that point.
func espeakWordMarks(text string, events []espeakEvent, pcm PCM) []WordMark {
	offs := runeByteOffsets(text)
	nRunes := len(offs) - 1
	total := pcm.Seconds()
	var marks []wordTime
	for i, ev := range events {
		if ev.typ != C.espeakEVENT_WORD || ev.pos < 1 || ev.pos > nRunes {
			continue
		}
		start := min(float64(ev.audioMsec)/1000, total)
		end := total
		for _, next := range events[i+1:] {
			if float64(next.audioMsec)/1000 > start {
				end = min(float64(next.audioMsec)/1000, total)
				break
			}
		}
		marks = append(marks, wordTime{
			span:  span{offs[ev.pos-1], offs[min(ev.pos-1+max(ev.len, 1), nRunes)]},
			start: start, end: end,
		})
	}
	return wordMarksFromSpans(text, marks, pcm)
}
