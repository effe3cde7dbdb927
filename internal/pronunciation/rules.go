// Package pronunciation is pronunciation dictionaries: versioned lists of alias and phoneme
// rules, their W3C PLS import and export, the /v1/pronunciation-dictionaries routes, and the
// Applier that text to speech runs the rules of a request's dictionaries with.
package pronunciation

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"timbre/internal/engine"
	"timbre/internal/errs"
)

// Rule is one rule of a dictionary, as the API reads and writes it.
type Rule struct {
	StringToReplace string  `json:"string_to_replace"`
	Type            string  `json:"type"`
	Alias           *string `json:"alias,omitempty"`
	Phoneme         *string `json:"phoneme,omitempty"`
	Alphabet        *string `json:"alphabet,omitempty"`
	CaseSensitive   *bool   `json:"case_sensitive,omitempty"`
	WordBoundaries  *bool   `json:"word_boundaries,omitempty"`
}

// Limits.
const (
	MaxRules       = 5000 // rules in one version
	MaxRuleLength  = 500  // bytes of a rule's string, alias or phoneme
	MaxNameLength  = 200
	MaxDescription = 2000
)

// Alphabets of phoneme rules (the names the API and PLS use).
const (
	AlphabetIPA     = "ipa"
	AlphabetARPAbet = "cmu-arpabet"
)

// normalizeAlphabet maps the spellings in use to the API's names; "" for an unknown one.
func normalizeAlphabet(a string) string {
	switch strings.ToLower(strings.TrimSpace(a)) {
	case "ipa":
		return AlphabetIPA
	case "cmu-arpabet", "arpabet", "cmu", "x-cmu", "x-arpabet":
		return AlphabetARPAbet
	}
	return ""
}

// Phones is what a phoneme rule says, as ARPAbet phones with stress.
func Phones(alphabet, phoneme string) ([]string, error) {
	if normalizeAlphabet(alphabet) == AlphabetARPAbet {
		return engine.ParseARPAbet(phoneme)
	}
	return engine.ParseIPA(phoneme)
}

// normalizeRules checks rules (field names relative to where, e.g. "rules") and fills their
// defaults (both flags true, as the API's).
func normalizeRules(v *errs.Validator, where string, rules []Rule) []Rule {
	if len(rules) > MaxRules {
		v.Add("body", where, "too_long", fmt.Sprintf("At most %d rules.", MaxRules))
		return nil
	}
	out := make([]Rule, 0, len(rules))
	for i, r := range rules {
		at := fmt.Sprintf("%s.%d.", where, i)
		r.StringToReplace = strings.TrimSpace(r.StringToReplace)
		if r.StringToReplace == "" {
			v.Add("body", at+"string_to_replace", "missing", "The string to replace must not be empty.")
		} else if len(r.StringToReplace) > MaxRuleLength || !utf8.ValidString(r.StringToReplace) {
			v.Add("body", at+"string_to_replace", "value_error", fmt.Sprintf("At most %d bytes of UTF-8.", MaxRuleLength))
		}
		t := true
		if r.CaseSensitive == nil {
			r.CaseSensitive = &t
		}
		if r.WordBoundaries == nil {
			r.WordBoundaries = &t
		}
		switch r.Type {
		case "alias":
			if r.Alias == nil || strings.TrimSpace(*r.Alias) == "" {
				v.Add("body", at+"alias", "missing", "Field required: the alias.")
			} else if len(*r.Alias) > MaxRuleLength || !utf8.ValidString(*r.Alias) {
				v.Add("body", at+"alias", "value_error", fmt.Sprintf("At most %d bytes of UTF-8.", MaxRuleLength))
			}
			r.Phoneme, r.Alphabet = nil, nil
		case "phoneme":
			alpha := ""
			if r.Alphabet != nil {
				alpha = normalizeAlphabet(*r.Alphabet)
			}
			if alpha == "" {
				v.Add("body", at+"alphabet", "enum", "The alphabet must be 'ipa' or 'cmu-arpabet'.")
			} else {
				r.Alphabet = &alpha
			}
			if r.Phoneme == nil || strings.TrimSpace(*r.Phoneme) == "" {
				v.Add("body", at+"phoneme", "missing", "Field required: the phonemes.")
			} else if len(*r.Phoneme) > MaxRuleLength {
				v.Add("body", at+"phoneme", "value_error", fmt.Sprintf("At most %d bytes.", MaxRuleLength))
			} else if alpha != "" {
				if _, err := Phones(alpha, *r.Phoneme); err != nil {
					v.Add("body", at+"phoneme", "value_error", "The phonemes cannot be spoken: "+err.Error()+".")
				}
			}
			r.Alias = nil
		default:
			v.Add("body", at+"type", "enum", "The rule type must be 'alias' or 'phoneme'.")
		}
		out = append(out, r)
	}
	return out
}

// ---- applying rules ----

// compiled is a rule ready to match.
type compiled struct {
	find           string
	caseSensitive  bool
	wordBoundaries bool
	alias          string
	phones         []string // phoneme rules
}

// Applier runs the rules of a request's dictionaries over text: in locator order, then rule
// order; at each place in the text the first rule that matches wins.
type Applier struct {
	rules     []compiled
	byKey     map[string][]int // lower-cased string → indexes of its rules, in order
	lengths   []int            // the byte lengths of the rules' strings, each once
	anyInside bool             // some rule matches inside words
}

// Empty reports whether the applier changes nothing.
func (a *Applier) Empty() bool { return a == nil || len(a.rules) == 0 }

func (a *Applier) add(rules []Rule) {
	for _, r := range rules {
		c := compiled{find: r.StringToReplace, caseSensitive: r.CaseSensitive == nil || *r.CaseSensitive,
			wordBoundaries: r.WordBoundaries == nil || *r.WordBoundaries}
		if r.Type == "alias" && r.Alias != nil {
			c.alias = *r.Alias
		} else if r.Type == "phoneme" && r.Phoneme != nil && r.Alphabet != nil {
			ph, err := Phones(*r.Alphabet, *r.Phoneme)
			if err != nil {
				continue // checked when stored
			}
			c.phones = ph
		} else {
			continue
		}
		if a.byKey == nil {
			a.byKey = map[string][]int{}
		}
		key := strings.ToLower(c.find)
		a.byKey[key] = append(a.byKey[key], len(a.rules))
		if !slices.Contains(a.lengths, len(c.find)) {
			a.lengths = append(a.lengths, len(c.find))
		}
		a.anyInside = a.anyInside || !c.wordBoundaries
		a.rules = append(a.rules, c)
	}
}

// Applied is text after the rules: aliases replaced, phoneme spans marked.
type Applied struct {
	Text     string
	Mapping  []int                  // byte of Text → byte of the original text
	Phonemes []engine.Pronunciation // spans of Text to speak as phones
}

// Compose follows a normalisation of Applied.Text (norm: byte of the normalised text → byte of
// Applied.Text) back to the original text of origLen bytes, and places the phoneme spans in the
// normalised text.
func (ap Applied) Compose(norm []int, origLen int) ([]int, []engine.Pronunciation) {
	m := make([]int, len(norm))
	for i, k := range norm {
		if k >= 0 && k < len(ap.Mapping) {
			m[i] = ap.Mapping[k]
		} else {
			m[i] = origLen
		}
	}
	var prons []engine.Pronunciation
	for _, p := range ap.Phonemes {
		first, last := -1, -1
		for i, k := range norm {
			if k >= p.Start && k < p.End {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		if first < 0 {
			continue
		}
		end := last + 1
		for end < len(norm) && norm[end] == norm[last] {
			end++
		}
		if len(prons) > 0 && first < prons[len(prons)-1].End {
			continue
		}
		prons = append(prons, engine.Pronunciation{Start: first, End: end, Phones: p.Phones})
	}
	return m, prons
}

// Apply runs the rules over text (a nil Applier changes nothing).
func (a *Applier) Apply(text string) Applied {
	if a.Empty() {
		return Applied{Text: text, Mapping: identity(len(text))}
	}
	var b strings.Builder
	mapping := make([]int, 0, len(text))
	var prons []engine.Pronunciation
	for i := 0; i < len(text); {
		if c, n := a.match(text, i); n > 0 {
			if c.phones != nil {
				start := b.Len()
				b.WriteString(text[i : i+n])
				for k := range n {
					mapping = append(mapping, i+k)
				}
				prons = append(prons, engine.Pronunciation{Start: start, End: b.Len(), Phones: c.phones})
			} else {
				b.WriteString(c.alias)
				// The alias's bytes spread evenly over the replaced span (monotone, so the
				// alignment of the original text stays in order).
				for k := range len(c.alias) {
					mapping = append(mapping, i+k*n/len(c.alias))
				}
			}
			i += n
			continue
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		b.WriteString(text[i : i+size])
		for k := range size {
			mapping = append(mapping, i+k)
		}
		i += size
	}
	return Applied{Text: b.String(), Mapping: mapping, Phonemes: prons}
}

// match returns the first rule (in order) matching text at i and the length it matched.
// Candidates are found by the lower-cased text of each rule length at i.
func (a *Applier) match(text string, i int) (*compiled, int) {
	if !a.anyInside && !boundaryBefore(text, i) {
		return nil, 0
	}
	best, bestN := -1, 0
	for _, n := range a.lengths {
		if i+n > len(text) || (i+n < len(text) && !utf8.RuneStart(text[i+n])) {
			continue
		}
		s := text[i : i+n]
		for _, k := range a.byKey[strings.ToLower(s)] {
			if best >= 0 && k > best {
				break
			}
			c := &a.rules[k]
			if c.caseSensitive && s != c.find || !c.caseSensitive && !strings.EqualFold(s, c.find) {
				continue
			}
			if c.wordBoundaries && (!boundaryBefore(text, i) || !boundaryAfter(text, i+n)) {
				continue
			}
			best, bestN = k, n
			break
		}
	}
	if best < 0 {
		return nil, 0
	}
	return &a.rules[best], bestN
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func boundaryBefore(text string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return !isWordRune(r)
}

func boundaryAfter(text string, i int) bool {
	if i >= len(text) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return !isWordRune(r)
}

func identity(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}
