package music

import (
	"context"
	"math"
	"strings"
	"unicode"

	"timbre/internal/audio"
	"timbre/internal/convert"
	"timbre/internal/engine"
)

// Singer sings a plan's lines with a speech engine: each word is spoken by the engine at the
// pitch of its first melody note (engine.Prosody.F0Hz, monotone), then time-stretched with
// librubberband to exactly the length of its notes (one note per syllable), and mixed in where
// the melody instrument would have played. It is speech made to hold pitches, not a trained
// singing voice.
type Singer struct {
	Synth engine.Synthesizer
	Voice string // the engine's voice, e.g. flite "kal16" (a diphone voice: the same audio every time)
}

// sungWord is one word of the lyrics placed on the melody.
type sungWord struct {
	text    string
	at, end int // samples
	key     int // MIDI key of its first note, in the voice's range
}

// lyricQueue hands out a section's words syllable by syllable as the melody's notes come.
type lyricQueue struct {
	words []string
	sylls []int
	cur   int // index in Score.sung of the word being sung, -1 between words
}

func newLyricQueue(lines []string) *lyricQueue {
	q := &lyricQueue{cur: -1}
	for _, l := range lines {
		for _, w := range strings.FieldsFunc(l, func(r rune) bool { return unicode.IsSpace(r) || r == '-' || r == '—' }) {
			w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
			if w != "" {
				q.words = append(q.words, w)
				q.sylls = append(q.sylls, syllables(w))
			}
		}
	}
	return q
}

// take places the next syllable on a note; it reports false when the lyrics are used up (the
// melody instrument plays the note instead).
func (q *lyricQueue) take(sc *Score, key, on, off int) bool {
	if q == nil || len(q.words) == 0 {
		return false
	}
	if q.cur < 0 {
		for key > 64 { // into a singing range (at most E4)
			key -= 12
		}
		sc.sung = append(sc.sung, sungWord{text: q.words[0], at: on, end: off, key: key})
		q.cur = len(sc.sung) - 1
	}
	sc.sung[q.cur].end = off
	if q.sylls[0]--; q.sylls[0] == 0 {
		q.words, q.sylls, q.cur = q.words[1:], q.sylls[1:], -1
	}
	return true
}

// syllables estimates a word's syllables: its groups of vowels, a final silent e not counted.
func syllables(w string) int {
	w = strings.ToLower(w)
	n, prev := 0, false
	for _, r := range w {
		v := strings.ContainsRune("aeiouy", r)
		if v && !prev {
			n++
		}
		prev = v
	}
	if n > 1 && strings.HasSuffix(w, "e") && !strings.HasSuffix(w, "le") {
		n--
	}
	return max(n, 1)
}

func midiHz(key int) float64 { return 440 * math.Pow(2, float64(key-69)/12) }

// mixVocals sings the words that start in [from, to) into the section's stereo mix l, r (which
// starts at sample from), at about the level of the band.
func (s *Singer) mixVocals(ctx context.Context, sc *Score, from, to int, l, r []float32) error {
	var band float64
	for i := range l {
		m := float64(l[i]+r[i]) / 2
		band += m * m
	}
	band = math.Sqrt(band / float64(max(len(l), 1)))
	if band < 1e-4 {
		band = 0.05
	}
	for _, w := range sc.sung {
		if w.at < from || w.at >= to {
			continue
		}
		sung, err := s.sing(ctx, w)
		if err != nil {
			return err
		}
		var rms float64
		for _, v := range sung.Samples {
			rms += float64(v) * float64(v)
		}
		rms = math.Sqrt(rms/float64(max(len(sung.Samples), 1))) / 32768
		if rms == 0 {
			continue
		}
		g := 1.2 * band / rms
		n := len(sung.Samples)
		fade := min(SampleRate/100, n/4) // 10 ms in and out: no clicks
		for i, v := range sung.Samples {
			at := w.at - from + i
			if at >= len(l) {
				break
			}
			x := float64(v) / 32768 * g
			if i < fade {
				x *= float64(i) / float64(fade)
			} else if n-i < fade {
				x *= float64(n-i) / float64(fade)
			}
			l[at] += float32(x)
			r[at] += float32(x)
		}
	}
	return nil
}

// sing speaks w's word at its note's pitch, monotone, and stretches it to w's length.
func (s *Singer) sing(ctx context.Context, w sungWord) (engine.PCM, error) {
	res, err := s.Synth.Synthesize(ctx, engine.Request{Text: w.text, Voice: s.Voice, Language: "en",
		Prosody: engine.Prosody{Rate: 1, Pitch: 50, PitchRange: 0, F0Hz: midiHz(w.key)}})
	if err != nil {
		return engine.PCM{}, err
	}
	pcm := trimSilence(res.Audio)
	if len(pcm.Samples) == 0 {
		return engine.PCM{SampleRate: SampleRate}, nil
	}
	if pcm.SampleRate != SampleRate {
		pcm = engine.PCM{Samples: audio.Resample(pcm.Samples, pcm.SampleRate, SampleRate), SampleRate: SampleRate}
	}
	return convert.Stretch(ctx, pcm, w.end-w.at)
}

// trimSilence cuts the engine's leading and trailing silence.
func trimSilence(p engine.PCM) engine.PCM {
	peak := 0
	for _, v := range p.Samples {
		peak = max(peak, int(math.Abs(float64(v))))
	}
	thr := peak / 50
	a, b := 0, len(p.Samples)
	for a < b && int(math.Abs(float64(p.Samples[a]))) <= thr {
		a++
	}
	for b > a && int(math.Abs(float64(p.Samples[b-1]))) <= thr {
		b--
	}
	return engine.PCM{Samples: p.Samples[a:b], SampleRate: p.SampleRate}
}
