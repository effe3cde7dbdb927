package dialogue

import (
	"math"
	"testing"

	"timbre/internal/store"
)

func TestSplitAndClassify(t *testing.T) {
	text := "Hi [laughs] there [short pause][Whispers]  secret [French accent]"
	ps := split(text)
	var got []string
	for _, p := range ps {
		got = append(got, text[p.from:p.to])
	}
	want := []string{"Hi ", "[laughs]", " there ", "[short pause]", "[Whispers]", "  secret ", "[French accent]"}
	if len(got) != len(want) {
		t.Fatalf("pieces %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("piece %d %q, want %q", i, got[i], want[i])
		}
	}
	kinds := []tagKind{ps[1].tag.kind, ps[3].tag.kind, ps[4].tag.kind, ps[6].tag.kind}
	if kinds[0] != tagSound || kinds[1] != tagPause || kinds[2] != tagWhisper || kinds[3] != tagIgnored {
		t.Fatalf("kinds %v", kinds)
	}
	if ps[3].tag.seconds != 0.25 || classify("long  pause").seconds != 1 || classify("excited").kind != tagEmotion {
		t.Fatal("pause lengths or moods")
	}
	if speakable(" … — ") || !speakable(" ok ") || !speakable("日本") {
		t.Fatal("speakable")
	}
}

func TestGapsDeterministicAndInRange(t *testing.T) {
	a, b := &store.Voice{ID: "a"}, &store.Voice{ID: "b"}
	j := &Job{seed: 7, Lines: []*line{{voice: a}, {voice: b}, {voice: b}, {voice: a}}}
	g1, g2 := j.gaps(), j.gaps()
	for i := range g1 {
		if g1[i] != g2[i] {
			t.Fatal("gaps differ under one seed")
		}
	}
	if g1[0] != 0 || g1[1] < 0.25 || g1[1] > 0.45 || g1[2] < 0.12 || g1[2] > 0.2 || g1[3] < 0.25 || g1[3] > 0.45 {
		t.Fatalf("gaps %v", g1)
	}
	j.seed = 8
	if g3 := j.gaps(); g3[1] == g1[1] && g3[3] == g1[3] {
		t.Fatal("another seed, the same gaps")
	}
}

func TestWhisperize(t *testing.T) {
	const rate = 16000
	pcm := make([]int16, rate)
	for i := range pcm {
		pcm[i] = int16(8000 * math.Sin(2*math.Pi*150*float64(i)/rate))
	}
	orig := append([]int16(nil), pcm...)
	whisperize(pcm, rate, 1)
	energy := func(s []int16) float64 {
		var e float64
		for _, v := range s {
			e += float64(v) * float64(v)
		}
		return e
	}
	if energy(pcm) > 0.6*energy(orig) || energy(pcm) == 0 {
		t.Fatalf("whispered energy %.3g, voiced %.3g", energy(pcm), energy(orig))
	}
	again := append([]int16(nil), orig...)
	whisperize(again, rate, 1)
	for i := range again {
		if again[i] != pcm[i] {
			t.Fatal("not deterministic under one seed")
		}
	}
	if v, ok := whisperVoice("espeak", "en-us+f2"); !ok || v != "en-us+whisperf" {
		t.Fatal(v)
	}
	if v, _ := whisperVoice("espeak", "en-gb+m3"); v != "en-gb+whisper" {
		t.Fatal(v)
	}
	if _, ok := whisperVoice("flite", "slt"); ok {
		t.Fatal("flite has no whisper voice")
	}
}
