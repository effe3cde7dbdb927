package stt

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"timbre/internal/entities"
)

// maxAlignCells bounds the word-by-word table ApplyText fills between the unchanged beginning
// and end of an edit (16 MB of int32); a larger rewrite is timed in proportion instead.
const maxAlignCells = 4_000_000

// ApplyText returns t with its text replaced by a person's edit, keeping the timings: the
// edited words are aligned to the recognised ones (longest common subsequence of their letters,
// after the unchanged beginning and end are set aside), a kept word keeps its time, logprob and
// speaker, and the words that replace, or are inserted between, kept ones share the time of
// what they replace (or the pause between their neighbours) in proportion to their length.
func ApplyText(t *Transcript, text string) *Transcript {
	var orig []Word
	for _, w := range t.Words {
		if w.Type == "word" {
			orig = append(orig, w)
		}
	}
	tokens := strings.Fields(text)
	timed := len(orig) > 0 && orig[0].Start != nil
	pairs := alignWords(orig, tokens)

	out := make([]Word, len(tokens))
	for j, tok := range tokens {
		out[j] = Word{Text: tok, Type: "word"}
	}
	for _, p := range pairs {
		o := orig[p[0]]
		out[p[1]] = Word{Text: tokens[p[1]], Type: "word", Start: o.Start, End: o.End, SpeakerID: o.SpeakerID, Logprob: o.Logprob}
	}
	// The runs of edited words between kept ones (with sentinels at both ends).
	pairs = append([][2]int{{-1, -1}}, append(pairs, [2]int{len(orig), len(tokens)})...)
	for k := 1; k < len(pairs); k++ {
		ia, ja, ib, jb := pairs[k-1][0], pairs[k-1][1], pairs[k][0], pairs[k][1]
		if jb-ja <= 1 {
			continue
		}
		var from, to float64
		var speaker *string
		switch {
		case ib-ia > 1: // they replace recognised words: take those words' time
			from, to = deref(orig[ia+1].Start), deref(orig[ib-1].End)
			speaker = orig[ia+1].SpeakerID
		default: // inserted: take the pause between the neighbours
			if ia >= 0 {
				from, speaker = deref(orig[ia].End), orig[ia].SpeakerID
			}
			to = t.AudioDurationSecs
			if ib < len(orig) {
				to = deref(orig[ib].Start)
				if speaker == nil {
					speaker = orig[ib].SpeakerID
				}
			} else if ia >= 0 {
				to = max(from, to)
			}
		}
		spread(out[ja+1:jb], from, max(from, to), speaker, timed)
	}

	e := *t
	e.Words = make([]Word, 0, 2*len(out))
	for i, w := range out {
		if i > 0 {
			sp := Word{Text: " ", Type: "spacing", SpeakerID: w.SpeakerID}
			if timed {
				sp.Start, sp.End = out[i-1].End, ptr(max(deref(out[i-1].End), deref(w.Start)))
			}
			e.Words = append(e.Words, sp)
		}
		e.Words = append(e.Words, w)
	}
	e.Text = strings.Join(tokens, " ")
	e.AdditionalFormats = nil
	e.Entities = relocateEntities(t.Entities, e.Text)
	return &e
}

// relocateEntities finds found entities again in an edited text, in order (each after the one
// before); those the edit changed or removed are left out.
func relocateEntities(found *[]entities.Entity, text string) *[]entities.Entity {
	if found == nil {
		return nil
	}
	out := []entities.Entity{}
	at := 0 // byte offset in text
	for _, e := range *found {
		i := strings.Index(text[at:], e.Text)
		if e.Text == "" || i < 0 {
			continue
		}
		s := utf8.RuneCountInString(text[:at+i])
		out = append(out, entities.Entity{Text: e.Text, Type: e.Type, StartChar: s, EndChar: s + utf8.RuneCountInString(e.Text)})
		at += i + len(e.Text)
	}
	return &out
}

// spread shares [from, to] among words in proportion to their length.
func spread(words []Word, from, to float64, speaker *string, timed bool) {
	total := 0
	for _, w := range words {
		total += utf8.RuneCountInString(w.Text)
	}
	at := from
	for i := range words {
		words[i].SpeakerID = speaker
		if !timed {
			continue
		}
		end := at + (to-from)*float64(utf8.RuneCountInString(words[i].Text))/float64(max(total, 1))
		if i == len(words)-1 {
			end = to
		}
		words[i].Start, words[i].End = ptr(round3(at)), ptr(round3(end))
		at = end
	}
}

// alignWords pairs recognised words with edited tokens that say the same word, in order: the
// common beginning and end first, then the longest common subsequence of what lies between
// (when that table is small enough).
func alignWords(orig []Word, tokens []string) [][2]int {
	a := make([]string, len(orig))
	for i, w := range orig {
		a[i] = wordKey(w.Text)
	}
	b := make([]string, len(tokens))
	for j, tok := range tokens {
		b[j] = wordKey(tok)
	}
	var pairs [][2]int
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pairs = append(pairs, [2]int{pre, pre})
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma) > 0 && len(mb) > 0 && (len(ma)+1)*(len(mb)+1) <= maxAlignCells {
		pairs = append(pairs, lcs(ma, mb, pre)...)
	}
	for k := suf; k > 0; k-- {
		pairs = append(pairs, [2]int{len(a) - k, len(b) - k})
	}
	return pairs
}

// lcs is the longest common subsequence of a and b as index pairs (offset by off).
func lcs(a, b []string, off int) [][2]int {
	w := len(b) + 1
	table := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				table[i*w+j] = table[(i+1)*w+j+1] + 1
			} else {
				table[i*w+j] = max(table[(i+1)*w+j], table[i*w+j+1])
			}
		}
	}
	var pairs [][2]int
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			pairs = append(pairs, [2]int{off + i, off + j})
			i, j = i+1, j+1
		case table[(i+1)*w+j] >= table[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return pairs
}

// wordKey is a word as alignment compares it: lower case, letters and digits only.
func wordKey(s string) string {
	var b strings.Builder
	for _, c := range s {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			b.WriteRune(unicode.ToLower(c))
		}
	}
	if b.Len() == 0 {
		return s
	}
	return b.String()
}

// WithSpeakerNames returns t with its speaker ids replaced by the names given for them (for the
// exports). A transcript without speakers counts as speaker_0's throughout.
func WithSpeakerNames(t *Transcript, names map[string]string) *Transcript {
	if len(names) == 0 {
		return t
	}
	e := *t
	e.Words = make([]Word, len(t.Words))
	for i, w := range t.Words {
		id := DefaultSpeaker
		if w.SpeakerID != nil {
			id = *w.SpeakerID
		}
		if name, ok := names[id]; ok {
			w.SpeakerID = ptr(name)
		}
		e.Words[i] = w
	}
	return &e
}

// DefaultSpeaker is the speaker of a transcript made without diarization.
const DefaultSpeaker = "speaker_0"

// Speakers lists the speaker ids of t in order of first appearance (DefaultSpeaker alone when
// the words carry none).
func Speakers(t *Transcript) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range t.Words {
		if w.Type == "word" && w.SpeakerID != nil && !seen[*w.SpeakerID] {
			seen[*w.SpeakerID] = true
			out = append(out, *w.SpeakerID)
		}
	}
	if len(out) == 0 {
		return []string{DefaultSpeaker}
	}
	return out
}
