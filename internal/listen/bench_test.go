package listen_test

import (
	"fmt"
	"strings"
	"testing"

	"timbre/internal/engine/enginetest"
	"timbre/internal/listen"
)

// benchAudio is ten Harvard sentences, two flite voices alternating (about 25 s).
func benchAudio(b *testing.B) []int16 {
	pcm, _ := conversation(b, []string{"rms", "slt"}, enginetest.HarvardSentences()[:10], 0.6)
	return pcm
}

// report prints the audio seconds analysed per wall second.
func report(b *testing.B, pcm []int16) {
	b.ReportMetric(float64(len(pcm))/listen.Rate*float64(b.N)/b.Elapsed().Seconds(), "x_realtime")
}

func BenchmarkSpeechSegments(b *testing.B) {
	pcm := benchAudio(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := listen.SpeechSegments(pcm); err != nil {
			b.Fatal(err)
		}
	}
	report(b, pcm)
}

// BenchmarkDiarize reports TestDiarizeTwoVoicesAlternating's figures for each pair of voices
// and setting (auto: the number of speakers unknown; n2: num_speakers 2): the speakers found,
// the share of words attributed to the right one (right-%, of words), and the speed.
//
//	go test ./internal/listen/ -run '^$' -bench BenchmarkDiarize
func BenchmarkDiarize(b *testing.B) {
	for _, voices := range twoVoices {
		pcm, words := twoVoiceConversation(b, voices)
		for _, opts := range twoVoiceOptions {
			name := "auto"
			if opts.NumSpeakers > 0 {
				name = fmt.Sprintf("n%d", opts.NumSpeakers)
			}
			b.Run(strings.Join(voices, "+")+"/"+name, func(b *testing.B) {
				var turns []listen.Turn
				for b.Loop() {
					var err error
					if turns, err = listen.Diarize(pcm, opts); err != nil {
						b.Fatal(err)
					}
				}
				report(b, pcm)
				b.ReportMetric(float64(speakers(turns)), "speakers")
				b.ReportMetric(100*attributed(turns, words), "right-%")
				b.ReportMetric(float64(len(words)), "words")
			})
		}
	}
}

func BenchmarkAudioEvents(b *testing.B) {
	pcm := benchAudio(b)
	b.ResetTimer()
	for b.Loop() {
		listen.AudioEvents(pcm)
	}
	report(b, pcm)
}
