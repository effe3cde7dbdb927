package voiceprint

import (
	"math"
	"testing"

	"timbre/internal/engine"
)

// TestMergeAndSimilarity: two samples of a speaker merge, weighted by speech, into a print that
// is nearer a third sample of that speaker than any other voice is; Similarity is a symmetric
// 0–1 score, 1 for the same embedding.
func TestMergeAndSimilarity(t *testing.T) {
	fl := flite(t)
	normal := engine.Prosody{Rate: 1, Pitch: 50, PitchRange: 50}
	analyse := func(voice string, from, to int) *Print {
		p, err := Analyse(say(t, fl, voice, normal, harvard(from, to)))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := analyse("slt", 0, 6), analyse("slt", 6, 9)
	m := Merge([]*Print{a, nil, b})
	wa := a.SpeechSeconds / (a.SpeechSeconds + b.SpeechSeconds)
	if want := wa*a.F0Median + (1-wa)*b.F0Median; math.Abs(m.F0Median-want) > 0.01 {
		t.Errorf("merged F0 %.2f, want the speech-weighted %.2f", m.F0Median, want)
	}
	if want := wa*a.Embedding[3] + (1-wa)*b.Embedding[3]; math.Abs(m.Embedding[3]-want) > 1e-3 {
		t.Errorf("merged embedding[3] %.4f, want %.4f", m.Embedding[3], want)
	}
	if math.Abs(m.SpeechSeconds-(a.SpeechSeconds+b.SpeechSeconds)) > 1e-9 || m.Gender != "female" {
		t.Errorf("merged: %.2f s, %s", m.SpeechSeconds, m.Gender)
	}
	if Merge(nil) != nil || Merge([]*Print{nil}) != nil {
		t.Error("Merge of no prints is not nil")
	}

	c := analyse("slt", 20, 26)
	same := Similarity(m.Embedding, c.Embedding)
	t.Logf("slt merged vs a new slt clip: %.3f", same)
	for _, v := range []string{"awb", "rms", "kal16"} {
		other := Similarity(analyse(v, 0, 9).Embedding, c.Embedding)
		t.Logf("%s vs the slt clip: %.3f", v, other)
		if other >= same {
			t.Errorf("%s (%.3f) is as similar to slt as slt's own print (%.3f)", v, other, same)
		}
	}
	if s := Similarity(c.Embedding, c.Embedding); s != 1 {
		t.Errorf("self-similarity %v", s)
	}
	if s1, s2 := Similarity(a.Embedding, c.Embedding), Similarity(c.Embedding, a.Embedding); s1 != s2 || s1 <= 0 || s1 >= 1 {
		t.Errorf("Similarity not symmetric in (0,1): %v %v", s1, s2)
	}
	if Similarity(a.Embedding, a.Embedding[:10]) != 0 || Similarity(nil, nil) != 0 {
		t.Error("embeddings of different versions compare as similar")
	}
}
