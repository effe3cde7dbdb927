package engine

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"timbre/internal/audio"
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

// TestFliteNeutralIsTheVoice checks that the neutral prosody (what the default voice settings map
// to) is the voice as the flite command speaks it: the same length and pitch. Prosody set on the
// utterance replaces the voice's own features, so one the voice sets itself (kal16's
// duration_stretch 1.1) would otherwise be lost: kal16 spoke 10 % faster and pocketsphinx heard
// 5 points more word errors.
func TestFliteNeutralIsTheVoice(t *testing.T) {
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("the flite command is not installed")
	}
	f := newTestFlite(t)
	const text = "The birch canoe slid on the smooth planks."
	for _, voice := range fliteVoiceOrder {
		t.Run(voice, func(t *testing.T) {
			res, err := f.Synthesize(context.Background(), Request{Text: text, Voice: voice, Prosody: Prosody{Rate: 1, Pitch: 50, PitchRange: 50}})
			if err != nil {
				t.Fatal(err)
			}
			wav := filepath.Join(t.TempDir(), "flite.wav")
			if out, err := exec.Command("flite", "-voice", voice, "-t", text, "-o", wav).CombinedOutput(); err != nil {
				t.Fatalf("flite: %v: %s", err, out)
			}
			data, err := os.ReadFile(wav)
			if err != nil {
				t.Fatal(err)
			}
			want, rate, err := audio.Decode(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Audio
			if rate != got.SampleRate || len(want) != len(got.Samples) {
				t.Fatalf("%d samples at %d Hz; the flite command gives %d at %d Hz", len(got.Samples), got.SampleRate, len(want), rate)
			}
			// The clustergen voices (slt, awb, rms) mix rand() noise into their excitation; the
			// request's seed (none: 0) starts it where a fresh flite process starts, so every
			// voice's samples are the command's.
			if !slices.Equal(got.Samples, want) {
				t.Error("the samples differ from the flite command's")
			}
			if f0, wantF0 := medianF0(got), medianF0(PCM{Samples: want, SampleRate: rate}); math.Abs(f0/wantF0-1) > 0.02 {
				t.Errorf("median F0 %.1f Hz; the flite command's %.1f Hz", f0, wantF0)
			}
		})
	}
}

// TestFliteSeed: the same seed gives the same audio whatever was synthesized before, and another
// seed other noise in the clustergen voices.
func TestFliteSeed(t *testing.T) {
	f := newTestFlite(t)
	say := func(seed uint32) []int16 {
		res, err := f.Synthesize(context.Background(), Request{Text: "A seeded sentence.", Voice: "slt", Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return res.Audio.Samples
	}
	a := say(7)
	say(8)
	if b := say(7); !slices.Equal(a, b) {
		t.Error("seed 7 gave different audio the second time")
	}
	if c := say(8); slices.Equal(a, c) {
		t.Error("seeds 7 and 8 gave the same audio")
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
