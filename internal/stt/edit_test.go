package stt

import (
	"strings"
	"testing"
)

// recognised builds a transcript of words with the given times (spacing between them, as Build
// shapes it) and speakers.
func recognised(words []string, times [][2]float64, speakers []string) *Transcript {
	t := &Transcript{Text: strings.Join(words, " "), AudioDurationSecs: 10}
	for i, w := range words {
		if i > 0 {
			t.Words = append(t.Words, Word{Text: " ", Type: "spacing", Start: ptr(times[i-1][1]), End: ptr(times[i][0])})
		}
		t.Words = append(t.Words, Word{Text: w, Type: "word", Start: ptr(times[i][0]), End: ptr(times[i][1]), SpeakerID: ptr(speakers[i]), Logprob: -0.5})
	}
	return t
}

type timed struct {
	text       string
	start, end float64
	speaker    string
}

func wordsOf(t *Transcript) []timed {
	var out []timed
	for _, w := range t.Words {
		if w.Type == "word" {
			sp := ""
			if w.SpeakerID != nil {
				sp = *w.SpeakerID
			}
			out = append(out, timed{w.Text, deref(w.Start), deref(w.End), sp})
		}
	}
	return out
}

func TestApplyTextKeepsTimings(t *testing.T) {
	orig := recognised(
		[]string{"the", "quick", "brown", "fox", "jumps", "over"},
		[][2]float64{{0, 0.5}, {0.5, 1}, {1, 1.5}, {2, 2.5}, {3, 3.5}, {3.5, 4}},
		[]string{"speaker_0", "speaker_0", "speaker_0", "speaker_1", "speaker_1", "speaker_1"})

	// "quick brown" becomes "slow red-ish" (a replaced run shares the replaced words' time, in
	// proportion to length), a word is inserted in the pause before "jumps", "over" is deleted,
	// and a capital and punctuation do not count as a change.
	got := wordsOf(ApplyText(orig, "The  slow red-ish\nfox, really jumps"))
	want := []timed{
		{"The", 0, 0.5, "speaker_0"},
		{"slow", 0.5, 0.864, "speaker_0"},
		{"red-ish", 0.864, 1.5, "speaker_0"},
		{"fox,", 2, 2.5, "speaker_1"},
		{"really", 2.5, 3, "speaker_1"},
		{"jumps", 3, 3.5, "speaker_1"},
	}
	if len(got) != len(want) {
		t.Fatalf("words %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("word %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	e := ApplyText(orig, "The  slow red-ish\nfox, really jumps")
	if e.Text != "The slow red-ish fox, really jumps" || len(e.Words) != 2*len(want)-1 || e.Words[1].Type != "spacing" {
		t.Fatalf("text %q, %d entries", e.Text, len(e.Words))
	}

	// Words added before the first and after the last take the silence around them.
	got = wordsOf(ApplyText(orig, "Well the quick brown fox jumps over again"))
	if got[0] != (timed{"Well", 0, 0, "speaker_0"}) || got[len(got)-1] != (timed{"again", 4, 10, "speaker_1"}) {
		t.Fatalf("ends: %+v … %+v", got[0], got[len(got)-1])
	}

	// A transcript without timestamps stays without.
	untimed := &Transcript{Words: []Word{{Text: "hello", Type: "word"}, {Text: " ", Type: "spacing"}, {Text: "world", Type: "word"}}}
	for _, w := range ApplyText(untimed, "hello there world").Words {
		if w.Start != nil || w.End != nil {
			t.Fatalf("untimed transcript got times: %+v", w)
		}
	}
}

func TestSpeakerNames(t *testing.T) {
	orig := recognised([]string{"a", "b"}, [][2]float64{{0, 1}, {1, 2}}, []string{"speaker_0", "speaker_1"})
	if sp := Speakers(orig); len(sp) != 2 || sp[1] != "speaker_1" {
		t.Fatalf("speakers %v", sp)
	}
	named := wordsOf(WithSpeakerNames(orig, map[string]string{"speaker_1": "Bo"}))
	if named[0].speaker != "speaker_0" || named[1].speaker != "Bo" || *orig.Words[2].SpeakerID != "speaker_1" {
		t.Fatalf("named %+v (the original must not change)", named)
	}
	// Without diarization every word is speaker_0's.
	plain := &Transcript{Words: []Word{{Text: "hi", Type: "word"}}}
	if sp := Speakers(plain); len(sp) != 1 || sp[0] != DefaultSpeaker {
		t.Fatalf("speakers %v", sp)
	}
	if w := WithSpeakerNames(plain, map[string]string{"speaker_0": "Ann"}).Words[0]; w.SpeakerID == nil || *w.SpeakerID != "Ann" {
		t.Fatalf("unnamed word %+v", w)
	}
}

// longTranscript is n recognised words, 0.4 s each with 0.1 s pauses, cycling a small vocabulary.
func longTranscript(n int) (*Transcript, []string) {
	vocab := strings.Fields("the quick brown fox jumps over a lazy dog while seven bold pilots sing of distant harbours")
	words := make([]string, n)
	times := make([][2]float64, n)
	speakers := make([]string, n)
	for i := range words {
		words[i] = vocab[i%len(vocab)]
		times[i] = [2]float64{float64(i) * 0.5, float64(i)*0.5 + 0.4}
		speakers[i] = "speaker_0"
	}
	return recognised(words, times, speakers), words
}

// BenchmarkApplyText re-times an edit of a long transcript (about 40 minutes of speech): one
// word fixed in the middle, and a rewrite of a 1,000-word stretch (the aligned table's case).
func BenchmarkApplyText(b *testing.B) {
	t, words := longTranscript(5000)
	oneWord := append([]string{}, words...)
	oneWord[2500] = "fixed"
	rewrite := append([]string{}, words...)
	for i := 2000; i < 3000; i += 3 {
		rewrite[i] = "changed"
	}
	for _, c := range []struct {
		name string
		text string
	}{{"one_word", strings.Join(oneWord, " ")}, {"rewrite_1000_words", strings.Join(rewrite, " ")}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				ApplyText(t, c.text)
			}
		})
	}
}
