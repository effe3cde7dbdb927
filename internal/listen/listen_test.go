package listen_test

import (
	"context"
	"sync"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/engine/enginetest"
	"timbre/internal/listen"
)

var (
	fliteOnce sync.Once
	flite     *engine.Flite
	fliteErr  error
)

// spoken is a sentence synthesized by one voice at 16 kHz, with its words' times.
type spoken struct {
	pcm   []int16
	words []engine.WordMark
}

func say(tb testing.TB, voice, text string) spoken {
	tb.Helper()
	fliteOnce.Do(func() { flite, fliteErr = engine.NewFlite() })
	if fliteErr != nil {
		tb.Fatal(fliteErr)
	}
	res, err := flite.Synthesize(context.Background(), engine.Request{Text: text, Voice: voice})
	if err != nil {
		tb.Fatal(err)
	}
	pcm := res.Audio.Samples
	if res.Audio.SampleRate != listen.Rate {
		pcm = audio.Resample(pcm, res.Audio.SampleRate, listen.Rate)
	}
	return spoken{pcm, res.Words}
}

// truthWord is a word of a made-up conversation: its time and who said it.
type truthWord struct {
	start, end float64
	speaker    int
}

// conversation alternates sentences between the voices (voice i speaks sentences i, i+n, …),
// with pause seconds between turns, and returns the audio and every word's truth.
func conversation(tb testing.TB, voices []string, sentences []string, pause float64) ([]int16, []truthWord) {
	var pcm []int16
	var words []truthWord
	for i, s := range sentences {
		sp := say(tb, voices[i%len(voices)], s)
		pcm = append(pcm, make([]int16, int(pause*listen.Rate))...)
		at := float64(len(pcm)) / listen.Rate
		for _, w := range sp.words {
			words = append(words, truthWord{at + w.Start, at + w.End, i % len(voices)})
		}
		pcm = append(pcm, sp.pcm...)
	}
	return append(pcm, make([]int16, int(pause*listen.Rate))...), words
}

func TestSpeechSegmentsFindSpeechBetweenSilences(t *testing.T) {
	s := enginetest.HarvardSentences()
	pcm, words := conversation(t, []string{"rms"}, s[:3], 1.5)
	segs, err := listen.SpeechSegments(pcm)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 3 {
		t.Fatalf("%d segments, want 3 (one per sentence): %+v", len(segs), segs)
	}
	for _, w := range words { // every word lies inside a segment
		in := false
		for _, sg := range segs {
			in = in || (w.start >= sg.Start-0.05 && w.end <= sg.End+0.05)
		}
		if !in {
			t.Fatalf("word at %.2f–%.2f lies outside every segment %+v", w.start, w.end, segs)
		}
	}
	if segs[0].Start < 1.2 || segs[2].End > float64(len(pcm))/listen.Rate-1.2 {
		t.Fatalf("the leading and trailing silences were taken for speech: %+v", segs)
	}
	if got, _ := listen.SpeechSegments(make([]int16, 3*listen.Rate)); len(got) != 0 {
		t.Fatalf("digital silence gave segments %+v", got)
	}
}

// attributed is the share of words whose speaker (the turn they fall in) is the true one.
func attributed(turns []listen.Turn, words []truthWord) float64 {
	ok := 0
	for _, w := range words {
		if listen.SpeakerAt(turns, w.start, w.end) == w.speaker {
			ok++
		}
	}
	return float64(ok) / float64(len(words))
}

func speakers(turns []listen.Turn) int {
	seen := map[int]bool{}
	for _, t := range turns {
		seen[t.Speaker] = true
	}
	return len(seen)
}

// twoVoices are the pairs of flite voices that take turns in the two-speaker measurements (a
// male and a female voice, and two male voices), and twoVoiceOptions the settings they are
// diarized with: the number of speakers unknown (default threshold), and given.
var (
	twoVoices       = [][]string{{"rms", "slt"}, {"awb", "rms"}}
	twoVoiceOptions = []listen.DiarizeOptions{{}, {NumSpeakers: 2}}
)

// twoVoiceConversation is ten Harvard sentences, the voices taking turns with 0.7 s pauses.
func twoVoiceConversation(tb testing.TB, voices []string) ([]int16, []truthWord) {
	return conversation(tb, voices, enginetest.HarvardSentences()[:10], 0.7)
}

// TestDiarizeTwoVoicesAlternating: two flite voices take turns over ten Harvard sentences;
// diarization must find two speakers and attribute at least 90 % of the words correctly, with
// the number of speakers unknown (default threshold) and given. BenchmarkDiarize prints the
// same figures.
func TestDiarizeTwoVoicesAlternating(t *testing.T) {
	for _, voices := range twoVoices {
		pcm, words := twoVoiceConversation(t, voices)
		for _, opts := range twoVoiceOptions {
			turns, err := listen.Diarize(pcm, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := attributed(turns, words)
			t.Logf("%v %+v: %d speakers, %.1f %% of %d words attributed correctly", voices, opts, speakers(turns), 100*got, len(words))
			if speakers(turns) != 2 || got < 0.9 {
				t.Errorf("%v %+v: %d speakers, %.1f %% of words right; want 2 and ≥ 90 %%", voices, opts, speakers(turns), 100*got)
			}
		}
	}
}

// TestDiarizeOneVoice: each voice alone stays one speaker at the default threshold, and with
// num_speakers 2 (a maximum, as the API has it).
func TestDiarizeOneVoice(t *testing.T) {
	for _, voice := range []string{"slt", "rms", "awb", "kal16"} {
		pcm, _ := conversation(t, []string{voice}, enginetest.HarvardSentences()[:8], 0.7)
		for _, opts := range []listen.DiarizeOptions{{}, {NumSpeakers: 2}} {
			turns, err := listen.Diarize(pcm, opts)
			if err != nil {
				t.Fatal(err)
			}
			if n := speakers(turns); n != 1 {
				t.Errorf("%s alone %+v gave %d speakers: %+v", voice, opts, n, turns)
			}
		}
	}
}

// TestDiarizeThreeVoices: three voices give three speakers at the default threshold, and two
// with num_speakers 2.
func TestDiarizeThreeVoices(t *testing.T) {
	pcm, words := conversation(t, []string{"slt", "rms", "kal16"}, enginetest.HarvardSentences()[:9], 0.7)
	capped, err := listen.Diarize(pcm, listen.DiarizeOptions{NumSpeakers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n := speakers(capped); n != 2 {
		t.Errorf("num_speakers 2 gave %d speakers", n)
	}
	all, err := listen.Diarize(pcm, listen.DiarizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := attributed(all, words)
	t.Logf("three voices: %d speakers, %.1f %% of words right", speakers(all), 100*got)
	if speakers(all) != 3 || got < 0.9 {
		t.Errorf("three voices: %d speakers, %.1f %% of words right", speakers(all), 100*got)
	}
}

// TestDiarizeShortRecordings: a recording of one sentence is one speaker, whatever the voice
// (the two halves of one sentence can lie as far apart as two voices: without a least amount
// of speech per speaker, slt's single sentences split in about one case of four); and two
// voices saying one sentence each are still told apart.
func TestDiarizeShortRecordings(t *testing.T) {
	sentences := append([]string{"It is a nice day to go for a walk in the park."}, enginetest.HarvardSentences()[:20]...)
	for _, voice := range []string{"slt", "rms", "awb", "kal16"} {
		for _, s := range sentences {
			pcm, _ := conversation(t, []string{voice}, []string{s}, 0.5)
			turns, err := listen.Diarize(pcm, listen.DiarizeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n := speakers(turns); n != 1 {
				t.Errorf("%s saying %q: %d speakers %+v", voice, s, n, turns)
			}
		}
	}
	hs := enginetest.HarvardSentences()
	for _, pair := range [][]string{{"slt", "rms"}, {"slt", "kal16"}, {"awb", "slt"}} {
		found := 0
		for i := 0; i+1 < 20; i += 2 {
			pcm, words := conversation(t, pair, hs[i:i+2], 0.5)
			turns, err := listen.Diarize(pcm, listen.DiarizeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if speakers(turns) == 2 && attributed(turns, words) >= 0.9 {
				found++
			}
		}
		t.Logf("%v, one sentence each: two speakers, ≥ 90 %% of words right, in %d of 10", pair, found)
		if found < 8 {
			t.Errorf("%v, one sentence each: two speakers told apart in only %d of 10 recordings", pair, found)
		}
	}
}
