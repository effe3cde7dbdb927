package engine

/*
#include <stdlib.h>
#include <string.h>
#include <espeak-ng/speak_lib.h>

// timbre_espeak_phonemes translates text into IPA phonemes, each phoneme followed by sep and
// words separated by spaces, clause by clause into out (cap bytes, NUL-terminated). -1: the
// output did not fit.
static int timbre_espeak_phonemes(const char *text, char sep, char *out, size_t cap) {
	const void *p = text;
	size_t n = 0;
	out[0] = 0;
	while (p != NULL) {
		const char *ph = espeak_TextToPhonemes(&p, espeakCHARS_UTF8, 0x02 | ((int)(unsigned char)sep << 8));
		if (ph == NULL)
			break;
		size_t l = strlen(ph);
		if (n + l + 2 > cap)
			return -1;
		if (n > 0)
			out[n++] = ' ';
		memcpy(out + n, ph, l + 1);
		n += l;
	}
	return 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// Grapheme to phoneme: pronunciations for words the recognizer's dictionary (cmudict) lacks.
// espeak-ng's English rules give the word's phonemes in IPA; ipaToARPAbet maps them to the 39
// phones of pocketsphinx's en-us acoustic model (ARPAbet without stress).

// g2pVoice is the espeak-ng voice whose letter-to-sound rules are used: US English, as the
// acoustic model.
const g2pVoice = "en-us"

// espeakIPA is the IPA espeak-ng reads text as (US English), each phoneme followed by '_' and
// words separated by spaces. The library is initialized in this process on first use (its
// state is global: calls are serialized with synthesis by espeakMu; a translation takes
// microseconds).
func espeakIPA(text string) (string, error) {
	if _, err := NewEspeak(); err != nil {
		return "", err
	}
	espeakMu.Lock()
	defer espeakMu.Unlock()
	cvoice := C.CString(g2pVoice)
	defer C.free(unsafe.Pointer(cvoice))
	if rc := C.espeak_SetVoiceByName(cvoice); rc != C.EE_OK {
		return "", fmt.Errorf("espeak: cannot load voice %q (error %d)", g2pVoice, int(rc))
	}
	ctext := C.CString(text)
	defer C.free(unsafe.Pointer(ctext))
	const capacity = 4096
	out := (*C.char)(C.malloc(capacity))
	defer C.free(unsafe.Pointer(out))
	if C.timbre_espeak_phonemes(ctext, '_', out, capacity) != 0 {
		return "", errors.New("espeak: phonemes too long")
	}
	return C.GoString(out), nil
}

// arpabetPhones are the 39 phones of the en-us acoustic model (its mdef also has SIL and the
// noise phones +NSN+ and +SPN+, which no word uses).
var arpabetPhones = []string{
	"AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH",
	"IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH", "UH",
	"UW", "V", "W", "Y", "Z", "ZH",
}

// ipaPhones maps espeak-ng's IPA phonemes (stress marks and length marks removed) to ARPAbet,
// as cmudict transcribes the same sounds. Diphthongs are one phone (aɪ → AY); r-coloured vowels
// are a vowel and R (ɑːɹ → AA R) except the stressed and unstressed "er" vowel, which is ER;
// syllabic consonants are a schwa and the consonant (əl, n̩ → AH N); the flap (butter, ladder) is
// T, as cmudict writes most of them; the glottal stop (button) is nothing.
var ipaPhones = map[string][]string{
	// vowels
	"ɑ": {"AA"}, "ɒ": {"AA"}, "a": {"AA"}, "æ": {"AE"}, "ʌ": {"AH"}, "ə": {"AH"}, "ɐ": {"AH"},
	"ɔ": {"AO"}, "ɛ": {"EH"}, "e": {"EH"}, "ɪ": {"IH"}, "ᵻ": {"IH"}, "ɨ": {"IH"}, "i": {"IY"},
	"ʊ": {"UH"}, "u": {"UW"}, "ʉ": {"UW"}, "o": {"OW"}, "y": {"UW"},
	// diphthongs
	"aɪ": {"AY"}, "aʊ": {"AW"}, "ɔɪ": {"OY"}, "eɪ": {"EY"}, "oʊ": {"OW"}, "əʊ": {"OW"},
	"ɪə": {"IH", "R"}, "eə": {"EH", "R"}, "ʊə": {"UH", "R"},
	// r-coloured vowels
	"ɚ": {"ER"}, "ɝ": {"ER"}, "ɜ": {"ER"}, "ɜɹ": {"ER"}, "əɹ": {"ER"},
	"ɑɹ": {"AA", "R"}, "ɔɹ": {"AO", "R"}, "oɹ": {"AO", "R"}, "ɛɹ": {"EH", "R"}, "eɹ": {"EH", "R"},
	"ɪɹ": {"IH", "R"}, "iɹ": {"IY", "R"}, "ʊɹ": {"UH", "R"}, "uɹ": {"UW", "R"},
	"aɪɚ": {"AY", "ER"}, "aɪə": {"AY", "ER"}, "aʊɚ": {"AW", "ER"}, "aʊə": {"AW", "ER"},
	// syllabic consonants
	"əl": {"AH", "L"}, "l̩": {"AH", "L"}, "n̩": {"AH", "N"}, "m̩": {"AH", "M"},
	// consonants
	"p": {"P"}, "b": {"B"}, "t": {"T"}, "d": {"D"}, "k": {"K"}, "ɡ": {"G"}, "g": {"G"},
	"f": {"F"}, "v": {"V"}, "θ": {"TH"}, "ð": {"DH"}, "s": {"S"}, "z": {"Z"}, "ʃ": {"SH"},
	"ʒ": {"ZH"}, "h": {"HH"}, "x": {"HH"}, "ç": {"HH"}, "tʃ": {"CH"}, "dʒ": {"JH"},
	"m": {"M"}, "n": {"N"}, "ŋ": {"NG"}, "l": {"L"}, "ɫ": {"L"}, "ɬ": {"L"},
	"ɹ": {"R"}, "r": {"R"}, "ɾ": {"T"}, "w": {"W"}, "ʍ": {"W"}, "j": {"Y"},
	"ʔ": {},
}

// ipaIgnored are marks that carry no phone: stress, length, ties, syllable breaks.
const ipaIgnored = "ˈˌːˑ͡‿.'"

// ipaToARPAbet maps espeak-ng's IPA (phonemes separated by '_' or spaces, as espeakIPA gives
// them) to ARPAbet phones. A phoneme the table lacks is read as the longest known phonemes it
// starts with; a character no phoneme covers is dropped.
func ipaToARPAbet(ipa string) []string {
	var out []string
	for _, tok := range strings.FieldsFunc(ipa, func(r rune) bool { return r == '_' || r == ' ' }) {
		tok = strings.Map(func(r rune) rune {
			if strings.ContainsRune(ipaIgnored, r) {
				return -1
			}
			return r
		}, tok)
		for tok != "" {
			if ps, ok := ipaPhones[tok]; ok {
				out = append(out, ps...)
				break
			}
			// The longest known prefix, else drop one character.
			n := 0
			for i := len(tok) - 1; i > 0; i-- {
				if _, ok := ipaPhones[tok[:i]]; ok && utf8.RuneStart(tok[i]) {
					n = i
					break
				}
			}
			if n == 0 {
				_, n = utf8.DecodeRuneInString(tok)
			} else {
				out = append(out, ipaPhones[tok[:n]]...)
			}
			tok = tok[n:]
		}
	}
	return out
}

// g2pCache keeps the pronunciations worked out (a word's is always the same); it is emptied
// when it reaches g2pCacheSize words.
var (
	g2pMu    sync.Mutex
	g2pCache = map[string]string{}
)

const g2pCacheSize = 10000

// Pronounce is word's pronunciation in the en-us acoustic model's phones ("Z AO R V AE TH"),
// from espeak-ng's letter-to-sound rules; "" when espeak reads it as no sound.
func Pronounce(word string) (string, error) {
	g2pMu.Lock()
	p, ok := g2pCache[word]
	g2pMu.Unlock()
	if ok {
		return p, nil
	}
	ipa, err := espeakIPA(word)
	if err != nil {
		return "", err
	}
	p = strings.Join(ipaToARPAbet(ipa), " ")
	g2pMu.Lock()
	if len(g2pCache) >= g2pCacheSize {
		clear(g2pCache)
	}
	g2pCache[word] = p
	g2pMu.Unlock()
	return p, nil
}
