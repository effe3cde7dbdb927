package listen_test

import (
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

func BenchmarkDiarize(b *testing.B) {
	pcm := benchAudio(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := listen.Diarize(pcm, listen.DiarizeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	report(b, pcm)
}

func BenchmarkAudioEvents(b *testing.B) {
	pcm := benchAudio(b)
	b.ResetTimer()
	for b.Loop() {
		listen.AudioEvents(pcm)
	}
	report(b, pcm)
}
