package stt

import (
	"context"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/listen"
	"timbre/internal/voiceprint"
)

// sayAll speaks the sentences with one flite voice at the recognition rate, a pause after each.
func sayAll(t *testing.T, fl *engine.Flite, voice string, sentences ...string) []int16 {
	t.Helper()
	var out []int16
	for _, s := range sentences {
		res, err := fl.Synthesize(context.Background(), engine.Request{Text: s, Voice: voice})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, audio.Resample(res.Audio.Samples, res.Audio.SampleRate, engine.RecognitionRate)...)
		out = append(out, make([]int16, engine.RecognitionRate*6/10)...)
	}
	return out
}

func printOf(t *testing.T, samples []int16) []float64 {
	t.Helper()
	p, err := voiceprint.Analyse(engine.PCM{Samples: samples, SampleRate: engine.RecognitionRate})
	if err != nil {
		t.Fatal(err)
	}
	return p.Embedding
}

// A conversation of awb and slt, with a library holding awb (from other sentences) and kal16:
// awb's turns are named after its library voice, slt (not in the library) stays speaker_N, and
// kal16 names no one.
func TestSpeakerLibraryNamesKnownSpeakers(t *testing.T) {
	fl, err := engine.NewFlite()
	if err != nil {
		t.Fatal(err)
	}
	lib := []librarySpeaker{
		{VoiceID: "voice-awb", Embedding: printOf(t, sayAll(t, fl, "awb", "The birch canoe slid on the smooth planks.", "Glue the sheet to the dark blue background.", "It's easy to tell the depth of a well."))},
		{VoiceID: "voice-kal", Embedding: printOf(t, sayAll(t, fl, "kal16", "These days a chicken leg is a rare dish.", "Rice is often served in round bowls.", "The juice of lemons makes fine punch."))},
	}
	var pcm []int16
	lines := []struct{ voice, text string }{
		{"awb", "The box was thrown beside the parked truck."},
		{"slt", "The hogs were fed chopped corn and garbage."},
		{"awb", "Four hours of steady work faced us."},
		{"slt", "A large size in stockings is hard to sell."},
		{"awb", "The boy was there when the sun rose."},
		{"slt", "A rod is used to catch pink salmon."},
	}
	for _, l := range lines {
		pcm = append(pcm, sayAll(t, fl, l.voice, l.text)...)
	}
	turns, err := listen.Diarize(pcm, listen.DiarizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec := engine.PCM{Samples: pcm, SampleRate: engine.RecognitionRate}
	names := matchSpeakers(rec, turns, lib)
	// Speakers are numbered in order of their first turn: awb is 0, slt is 1.
	if names[0] != "voice-awb" {
		t.Errorf("awb's speaker named %q, want voice-awb (names %v)", names[0], names)
	}
	if n, ok := names[1]; ok {
		t.Errorf("slt is not in the library but was named %q", n)
	}
	for sp := range 2 {
		var samples []int16
		for _, tu := range turns {
			if tu.Speaker == sp {
				samples = append(samples, pcm[int(tu.Start*16000):min(int(tu.End*16000), len(pcm))]...)
			}
		}
		e := printOf(t, samples)
		t.Logf("speaker %d: similarity to awb %.2f, to kal16 %.2f", sp, voiceprint.Similarity(e, lib[0].Embedding), voiceprint.Similarity(e, lib[1].Embedding))
	}
	if got := matchSpeakers(rec, turns, nil); got != nil {
		t.Errorf("an empty library named %v", got)
	}
}
