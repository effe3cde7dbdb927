package engine

import (
	"context"
	"testing"
)

func newTestFlite(t testing.TB) *Flite {
	t.Helper()
	f, err := NewFlite()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFliteEnglish(t *testing.T) {
	f := newTestFlite(t)
	for _, voice := range []string{"", "slt", "awb", "rms", "kal16"} {
		for _, c := range englishCases {
			c.req.Voice = voice
			if res := checkSpeech(t, f, c); res.Audio.SampleRate != 16000 {
				t.Errorf("sample rate %d, want 16000", res.Audio.SampleRate)
			}
		}
	}
}

func TestFliteVoices(t *testing.T) {
	voices, err := newTestFlite(t).Voices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range voices {
		names = append(names, v.Name)
		if len(v.Languages) != 1 || v.Languages[0] != "en" || v.Gender == "" {
			t.Errorf("voice %+v", v)
		}
	}
	if len(names) != 4 {
		t.Errorf("voices %v", names)
	}
}

func TestFliteUnknownVoice(t *testing.T) {
	checkUnknownVoice(t, newTestFlite(t), Request{Voice: "nope"}, Request{Voice: "kal"}, Request{Language: "de"})
}

func TestFliteProsody(t *testing.T) {
	for _, v := range []string{"slt", "kal16"} {
		t.Run(v, func(t *testing.T) { checkProsody(t, newTestFlite(t), v) })
	}
}

func TestFliteConcurrent(t *testing.T) {
	checkConcurrent(t, newTestFlite(t), "kal16")
	checkConcurrent(t, newTestFlite(t), "slt")
}

func TestFlitePool(t *testing.T) {
	p, err := NewFlitePool(2)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	checkSpeech(t, p, englishCases[0])
	checkUnknownVoice(t, p, Request{Voice: "nope"})
}

func BenchmarkFlite(b *testing.B) {
	f := newTestFlite(b)
	for _, v := range []string{"slt", "awb", "rms", "kal16"} {
		b.Run(v, func(b *testing.B) { benchSynth(b, f, Request{Text: benchText, Voice: v}, true) })
	}
}
