package engine

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func newTestEspeak(t testing.TB) *Espeak {
	t.Helper()
	e, err := NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// espeakSynths runs a test against the in-process engine and the pool.
func espeakSynths(t *testing.T, f func(t *testing.T, s Synthesizer)) {
	t.Run("in-process", func(t *testing.T) { f(t, newTestEspeak(t)) })
	t.Run("pool", func(t *testing.T) { f(t, sharedEspeakPool(t)) })
}

func TestEspeakEnglish(t *testing.T) {
	espeakSynths(t, func(t *testing.T, s Synthesizer) {
		for _, voice := range []string{"", "en-us", "en-us+f3", "en-GB"} {
			for _, c := range englishCases {
				c.req.Voice = voice
				res := checkSpeech(t, s, c)
				if res.Audio.SampleRate != 22050 {
					t.Errorf("sample rate %d, want 22050", res.Audio.SampleRate)
				}
			}
		}
	})
}

func TestEspeakOtherLanguages(t *testing.T) {
	cases := []speechCase{
		{Request{Text: "Hola, ¿cómo estás? Me llamo Juan.", Language: "es"},
			[]string{"Hola", "cómo", "estás", "Me", "llamo", "Juan"}, 1, 5},
		{Request{Text: "Schöne Grüße aus München, über die Brücke.", Voice: "de"},
			[]string{"Schöne", "Grüße", "aus", "München", "über", "die", "Brücke"}, 1, 5},
		{Request{Text: "Ça coûte 20 euros, n'est-ce pas ?", Language: "fr-FR", Voice: "fr-fr+f2"},
			[]string{"Ça", "coûte", "20", "euros", "n'est-ce", "pas"}, 1, 5},
	}
	espeakSynths(t, func(t *testing.T, s Synthesizer) {
		for _, c := range cases {
			checkSpeech(t, s, c)
		}
	})
}

func TestEspeakVoices(t *testing.T) {
	espeakSynths(t, func(t *testing.T, s Synthesizer) {
		voices, err := s.Voices(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(voices) < 50 {
			t.Fatalf("%d voices, want the ~130 espeak-ng languages", len(voices))
		}
		byName := map[string]VoiceInfo{}
		for _, v := range voices {
			byName[v.Name] = v
		}
		for name, lang := range map[string]string{"en-us": "en", "en": "en", "es": "es", "de": "de", "cmn": "zh"} {
			if v, ok := byName[name]; !ok || len(v.Languages) == 0 || v.Languages[0] != lang {
				t.Errorf("voice %q = %+v, want primary language %q", name, v, lang)
			}
		}
		// Listed voices must be accepted, by name and with a variant.
		for _, v := range []string{"af", "ar", "cmn", "en-029", "fr-fr", "hi", "ja", "ru", "sw", "vi+m2"} {
			if _, err := s.Synthesize(context.Background(), Request{Text: "a", Voice: v}); err != nil {
				t.Errorf("voice %q: %v", v, err)
			}
		}
	})
}

func TestEspeakUnknownVoice(t *testing.T) {
	espeakSynths(t, func(t *testing.T, s Synthesizer) {
		checkUnknownVoice(t, s, Request{Voice: "nope"}, Request{Voice: "en-us+nope"}, Request{Language: "xx"},
			Request{Voice: "mb-us1"})
	})
}

func TestEspeakProsody(t *testing.T) {
	espeakSynths(t, func(t *testing.T, s Synthesizer) { checkProsody(t, s, "en-us") })
}

func TestEspeakConcurrent(t *testing.T) {
	espeakSynths(t, func(t *testing.T, s Synthesizer) { checkConcurrent(t, s, "en-us") })
}

func TestEspeakEmptyText(t *testing.T) {
	espeakSynths(t, func(t *testing.T, s Synthesizer) {
		res, err := s.Synthesize(context.Background(), Request{Text: " "})
		if err != nil || len(res.Words) != 0 || res.Audio.Seconds() > 0.5 {
			t.Errorf("blank text: %v, %d words, %.2f s", err, len(res.Words), res.Audio.Seconds())
		}
	})
}

func TestEspeakCancel(t *testing.T) {
	long := ""
	for range 200 {
		long += "This sentence is repeated to make a long text. "
	}
	espeakSynths(t, func(t *testing.T, s Synthesizer) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := s.Synthesize(ctx, Request{Text: "Hello."}); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled context: err = %v", err)
		}
		ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		start := time.Now()
		if _, err := s.Synthesize(ctx, Request{Text: long}); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("timeout: err = %v", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("cancellation took %v", d)
		}
		// The engine (or a restarted worker) must still work.
		checkSpeech(t, s, englishCases[0])
	})
}

func TestEspeakPoolClose(t *testing.T) {
	p, err := NewEspeakPool(1)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := p.Voices(context.Background()); !slices.ContainsFunc(v, func(v VoiceInfo) bool { return v.Name == "en-us" }) {
		t.Error("pool voices lack en-us")
	}
	checkSpeech(t, p, englishCases[0])
	p.Close()
	if _, err := p.Synthesize(context.Background(), englishCases[0].req); err == nil {
		t.Error("Synthesize after Close succeeded")
	}
}

func BenchmarkEspeakInProcess(b *testing.B) {
	benchSynth(b, newTestEspeak(b), Request{Text: benchText, Voice: "en-us"}, false)
}

func BenchmarkEspeakPool(b *testing.B) {
	benchSynth(b, sharedEspeakPool(b), Request{Text: benchText, Voice: "en-us"}, true)
}
