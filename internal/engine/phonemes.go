package engine

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Pronunciation makes the engine speak Text[Start:End] as the given phones: ARPAbet (the CMU
// dictionary's phone set), vowels with a stress digit ("K AH0 M P Y UW1 T ER0"). Pronunciation
// dictionaries' phoneme rules arrive here; each engine turns the phones into its own input
// (espeak-ng phoneme mnemonics, flite lexicon entries).
type Pronunciation struct {
	Start, End int
	Phones     []string
}

var arpabetVowels = []string{"AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"}

// ParseARPAbet reads CMU ARPAbet phones separated by spaces, any case, stress digits optional
// (an unstressed vowel gets 0, except that a word with no stress mark stresses its first vowel).
func ParseARPAbet(s string) ([]string, error) {
	var out []string
	stressed := false
	for _, tok := range strings.Fields(strings.ToUpper(s)) {
		base, digit := tok, ""
		if n := len(tok); n > 1 && tok[n-1] >= '0' && tok[n-1] <= '2' {
			base, digit = tok[:n-1], tok[n-1:]
		}
		if !slices.Contains(arpabetPhones, base) {
			return nil, fmt.Errorf("unknown ARPAbet phone %q", tok)
		}
		if slices.Contains(arpabetVowels, base) {
			if digit == "" {
				digit = "0"
			} else if digit != "0" {
				stressed = true
			}
			out = append(out, base+digit)
		} else if digit != "" {
			return nil, fmt.Errorf("the consonant %q takes no stress digit", tok)
		} else {
			out = append(out, base)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no phones")
	}
	stressFirst(out, stressed)
	return out, nil
}

// stressFirst gives the first vowel primary stress when none is marked.
func stressFirst(phones []string, stressed bool) {
	if stressed {
		return
	}
	for i, p := range phones {
		if strings.HasSuffix(p, "0") {
			phones[i] = p[:len(p)-1] + "1"
			return
		}
	}
}

// ParseIPA reads an IPA transcription (English sounds; ˈ and ˌ mark stress, ː length, . and
// spaces syllables and words) as ARPAbet phones with stress. A symbol with no English
// counterpart is an error, so a rule cannot silently speak something else.
func ParseIPA(s string) ([]string, error) {
	var out []string
	stress, stressed := "0", false
	rest := strings.TrimSpace(s)
	rest = strings.Trim(rest, "/[]")
	for rest != "" {
		r, n := utf8.DecodeRuneInString(rest)
		switch {
		case r == 'ˈ' || r == '\'':
			stress, stressed = "1", true
			rest = rest[n:]
			continue
		case r == 'ˌ':
			stress = "2"
			rest = rest[n:]
			continue
		case strings.ContainsRune("ːˑ͡‿. ", r):
			rest = rest[n:]
			continue
		}
		// The longest symbol of the table at this point.
		best := 0
		for i := min(len(rest), 12); i > 0; i-- {
			if i < len(rest) && !utf8.RuneStart(rest[i]) {
				continue
			}
			if _, ok := ipaPhones[rest[:i]]; ok {
				best = i
				break
			}
		}
		if best == 0 {
			return nil, fmt.Errorf("the IPA symbol %q has no English sound", string(r))
		}
		for _, p := range ipaPhones[rest[:best]] {
			if slices.Contains(arpabetVowels, p) {
				p += stress
				stress = "0"
			}
			out = append(out, p)
		}
		rest = rest[best:]
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no phones")
	}
	stressFirst(out, stressed)
	return out, nil
}

// espeakMnemonics are espeak-ng's English phoneme mnemonics for ARPAbet phones ([[...]] input).
var espeakMnemonics = map[string]string{
	"AA": "A:", "AE": "a", "AH": "V", "AO": "O:", "AW": "aU", "AY": "aI", "B": "b", "CH": "tS", "D": "d",
	"DH": "D", "EH": "E", "ER": "3:", "EY": "eI", "F": "f", "G": "g", "HH": "h", "IH": "I", "IY": "i:",
	"JH": "dZ", "K": "k", "L": "l", "M": "m", "N": "n", "NG": "N", "OW": "oU", "OY": "OI", "P": "p",
	"R": "r", "S": "s", "SH": "S", "T": "t", "TH": "T", "UH": "U", "UW": "u:", "V": "v", "W": "w",
	"Y": "j", "Z": "z", "ZH": "Z",
}

// EspeakPhonemes writes ARPAbet phones as espeak-ng phoneme mnemonics: ' before a primary
// stressed vowel, , before a secondary one; unstressed AH and ER are the reduced vowels @ and 3.
func EspeakPhonemes(phones []string) string {
	var b strings.Builder
	for _, p := range phones {
		base, stress := p, ""
		if n := len(p); n > 1 && p[n-1] >= '0' && p[n-1] <= '2' {
			base, stress = p[:n-1], p[n-1:]
		}
		m := espeakMnemonics[base]
		switch stress {
		case "1":
			b.WriteByte('\'')
		case "2":
			b.WriteByte(',')
		case "0":
			switch base {
			case "AH":
				m = "@"
			case "ER":
				m = "3"
			}
		}
		b.WriteString(m)
	}
	return b.String()
}

// rewrite replaces each pronunciation's span of text with what repl makes of it, and returns
// the new text and, for every byte of it (and its end), the byte of text it stands for.
func rewrite(text string, prons []Pronunciation, repl func(i int, p Pronunciation) string) (string, []int) {
	var b strings.Builder
	back := make([]int, 0, len(text)+1)
	at := 0
	for i, p := range prons {
		if p.Start < at || p.End > len(text) || p.End <= p.Start {
			continue
		}
		b.WriteString(text[at:p.Start])
		for k := at; k < p.Start; k++ {
			back = append(back, k)
		}
		r := repl(i, p)
		b.WriteString(r)
		for range len(r) {
			back = append(back, p.Start)
		}
		at = p.End
	}
	b.WriteString(text[at:])
	for k := at; k <= len(text); k++ {
		back = append(back, k)
	}
	return b.String(), back
}

// mapWordsBack moves word marks of a rewritten text onto the original one (back from rewrite).
// A replaced span's word covers the whole original span.
func mapWordsBack(words []WordMark, back []int, ends map[int]int) []WordMark {
	out := make([]WordMark, 0, len(words))
	for _, w := range words {
		if w.Offset < 0 || w.Offset+w.Length >= len(back) {
			continue
		}
		start, end := back[w.Offset], back[w.Offset+w.Length]
		if e, ok := ends[start]; ok && end <= start {
			end = e
		} else if ok {
			end = max(end, e)
		}
		w.Offset, w.Length = start, max(end-start, 0)
		out = append(out, w)
	}
	return out
}
