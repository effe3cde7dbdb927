package listen_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"timbre/internal/engine/enginetest"
	"timbre/internal/listen"
)

// melody is seconds of synthetic music: a tune of notes of a scale (0.25–0.5 s each) played
// by a harmonic instrument (five partials, a soft attack and decay) over chords of the
// scale held for a second each, at about -12 dBFS.
func melody(seconds float64, seed uint64) []int16 {
	r := rand.New(rand.NewPCG(seed, 1))
	scale := []float64{0, 2, 4, 5, 7, 9, 11, 12}
	out := make([]int16, int(seconds*listen.Rate))
	for at := 0; at < len(out); {
		f0 := 220 * math.Pow(2, scale[r.IntN(len(scale))]/12)
		n := int((0.25 + 0.25*r.Float64()) * listen.Rate)
		for i := 0; i < n && at+i < len(out); i++ {
			t := float64(i) / listen.Rate
			env := math.Min(1, t/0.02) * math.Exp(-1.5*t)
			var v float64
			for h := 1.0; h <= 5; h++ {
				v += math.Sin(2*math.Pi*f0*h*t) / h
			}
			out[at+i] = int16(7000 * env * v)
		}
		at += n
	}
	for at := 0; at < len(out); at += listen.Rate {
		root := 110 * math.Pow(2, scale[r.IntN(5)]/12)
		for i := 0; i < listen.Rate && at+i < len(out); i++ {
			t := float64(i) / listen.Rate
			env := math.Min(1, t/0.03) * math.Exp(-0.8*t)
			var v float64
			for _, ratio := range []float64{1, 1.26, 1.5} {
				for h := 1.0; h <= 3; h++ {
					v += math.Sin(2*math.Pi*root*ratio*h*t) / h
				}
			}
			out[at+i] = int16(max(-32000, min(32000, float64(out[at+i])+2500*env*v)))
		}
	}
	return out
}

// noise is white noise at about -25 dBFS.
func noise(seconds float64, seed uint64) []int16 {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]int16, int(seconds*listen.Rate))
	for i := range out {
		out[i] = int16(r.NormFloat64() * 1800)
	}
	return out
}

// laughter is synthetic "ha-ha-ha": n breathy voiced bursts (a 260 Hz pulse train through an
// /a/-like formant pair plus breath noise), 120 ms long every 220 ms, fading.
func laughter(n int, seed uint64) []int16 {
	r := rand.New(rand.NewPCG(seed, 3))
	period := int(0.22 * listen.Rate)
	out := make([]int16, n*period+listen.Rate/5)
	for b := range n {
		amp := 9000 * math.Pow(0.85, float64(b))
		for i := 0; i < int(0.12*listen.Rate); i++ {
			t := float64(i) / listen.Rate
			env := math.Sin(math.Pi * t / 0.12)
			var v float64
			for h := 1.0; h <= 12; h++ {
				f := 260 * h
				g := math.Exp(-math.Pow((f-800)/300, 2)) + 0.6*math.Exp(-math.Pow((f-1200)/300, 2)) + 0.05
				v += g * math.Sin(2*math.Pi*f*t)
			}
			v += 0.3 * r.NormFloat64()
			out[b*period+i] = int16(amp * env * v / 2)
		}
	}
	return out
}

func silence(seconds float64) []int16 { return make([]int16, int(seconds*listen.Rate)) }

func concat(parts ...[]int16) []int16 {
	var out []int16
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func kinds(evs []listen.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Kind)
	}
	return out
}

// TestAudioEvents: speech, then music, then noise, then laughter-like bursts, each between
// silences: each sound gives its event at its time, and speech gives none.
func TestAudioEvents(t *testing.T) {
	s := enginetest.HarvardSentences()
	speech := concat(say(t, "rms", s[0]).pcm, silence(0.5), say(t, "slt", s[1]).pcm)
	at := func(parts ...[]int16) float64 { return float64(len(concat(parts...))) / listen.Rate }
	music, hiss, laugh := melody(4, 1), noise(3, 2), laughter(6, 3)
	pcm := concat(speech, silence(1), music, silence(1), hiss, silence(1), laugh, silence(1))
	evs := listen.AudioEvents(pcm)
	t.Logf("events: %+v", evs)
	want := []listen.Event{
		{Segment: listen.Segment{Start: at(speech, silence(1)), End: at(speech, silence(1), music)}, Kind: listen.Music},
		{Segment: listen.Segment{Start: at(speech, silence(1), music, silence(1)), End: at(speech, silence(1), music, silence(1), hiss)}, Kind: listen.Noise},
		{Segment: listen.Segment{Start: at(speech, silence(1), music, silence(1), hiss, silence(1)), End: at(speech, silence(1), music, silence(1), hiss, silence(1), laugh)}, Kind: listen.Laughter},
	}
	if len(evs) != len(want) {
		t.Fatalf("events %v, want music, noise, laughter", kinds(evs))
	}
	for i, w := range want {
		e := evs[i]
		if e.Kind != w.Kind || e.Start < w.Start-0.3 || e.End > w.End+0.3 || e.Duration() < 0.6*w.Duration() {
			t.Errorf("event %d: %+v, want %+v", i, e, w)
		}
	}
}

// TestAudioEventsNoneInSpeech: ten sentences of each flite voice give no event.
func TestAudioEventsNoneInSpeech(t *testing.T) {
	for _, voice := range []string{"rms", "slt", "awb", "kal16"} {
		pcm, _ := conversation(t, []string{voice}, enginetest.HarvardSentences()[:10], 0.5)
		if evs := listen.AudioEvents(pcm); len(evs) != 0 {
			t.Errorf("%s speech gave events %+v", voice, evs)
		}
	}
}
