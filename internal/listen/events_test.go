package listen_test

import (
	"testing"

	"timbre/internal/engine/enginetest"
	"timbre/internal/listen"
	"timbre/internal/listen/listentest"
)

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
	speech := concat(say(t, "rms", s[0]).pcm, listentest.Silence(0.5), say(t, "slt", s[1]).pcm)
	at := func(parts ...[]int16) float64 { return float64(len(concat(parts...))) / listen.Rate }
	music, hiss, laugh := listentest.Melody(4, 1), listentest.Noise(3, 2), listentest.Laughter(6, 3)
	pcm := concat(speech, listentest.Silence(1), music, listentest.Silence(1), hiss, listentest.Silence(1), laugh, listentest.Silence(1))
	evs := listen.AudioEvents(pcm)
	t.Logf("events: %+v", evs)
	want := []listen.Event{
		{Segment: listen.Segment{Start: at(speech, listentest.Silence(1)), End: at(speech, listentest.Silence(1), music)}, Kind: listen.Music},
		{Segment: listen.Segment{Start: at(speech, listentest.Silence(1), music, listentest.Silence(1)), End: at(speech, listentest.Silence(1), music, listentest.Silence(1), hiss)}, Kind: listen.Noise},
		{Segment: listen.Segment{Start: at(speech, listentest.Silence(1), music, listentest.Silence(1), hiss, listentest.Silence(1)), End: at(speech, listentest.Silence(1), music, listentest.Silence(1), hiss, listentest.Silence(1), laugh)}, Kind: listen.Laughter},
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
