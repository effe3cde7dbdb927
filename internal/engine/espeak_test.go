package engine

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
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

// A released result's buffer is handed to the next result of its size class, and every sample of
// it is the new audio: a sentence's buffer is filled with a value speech never holds for long,
// released, and the next sentences of the same class reuse it without a trace of that value.
func TestPoolRecyclesAudioBuffers(t *testing.T) {
	p := sharedEspeakPool(t)
	ctx := context.Background()
	synth := func(text string) *Result {
		t.Helper()
		res, err := p.Synthesize(ctx, Request{Text: text, Voice: "en-us"})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// A garbage collection empties sync.Pools (the second one after a Put), and an item put on one
	// P may be out of another's reach: neither happens while this runs.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const stain = 0x5a5a
	reused := 0
	for i := range 4 {
		r := synth("Recycled buffers must hold nothing of the audio they held before.")
		for k := range r.Audio.Samples {
			r.Audio.Samples[k] = stain
		}
		first := &r.Audio.Samples[:1][0]
		r.Release()
		if r.pooled != nil {
			t.Fatal("Release must forget the buffer")
		}
		s := synth([]string{"Recycled buffers must hold nothing of the audio they held before.", "Not one sample of the audio that they held before, and nothing more.", "Nothing at all of the audio they held before, not one sample.", "Recycled buffers hold the new audio and nothing of the old audio."}[i])
		if &s.Audio.Samples[:1][0] == first {
			reused++
		}
		if run := longestRun(s.Audio.Samples, stain); run > 8 {
			t.Fatalf("sentence %d holds %d samples of the released buffer's contents", i, run)
		}
		s.Release()
	}
	if reused == 0 {
		t.Error("no buffer was reused")
	}
	// Results that did not come from the pool's buffers ignore Release.
	(&Result{Audio: PCM{Samples: make([]int16, 5000)}}).Release()
	if got := allocSamples(5000); cap(got) != 8192 {
		t.Errorf("allocSamples(5000) has capacity %d, want its class, 8192", cap(got))
	}
}

func longestRun(s []int16, v int16) int {
	best, n := 0, 0
	for _, x := range s {
		if x == v {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

func BenchmarkEspeakInProcess(b *testing.B) {
	benchSynth(b, newTestEspeak(b), Request{Text: benchText, Voice: "en-us"}, false)
}

func BenchmarkEspeakPool(b *testing.B) {
	benchSynth(b, sharedEspeakPool(b), Request{Text: benchText, Voice: "en-us"}, true)
}
