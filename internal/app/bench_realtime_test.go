package app_test

import (
	"slices"
	"testing"
	"time"

	"github.com/coder/websocket"

	"timbre/internal/store"
)

// BenchmarkRealtimePartialLatency reports TestRealtimeSpeechToText's partial latency: Timbre's own
// speech (realtimeText by Rachel, pcm_16000, about 7 s) streamed to the real-time route in 100 ms
// chunks at real-time pace; for each word said once, the time from sending the chunk that holds
// the word's end to the first partial transcript that has it. Reported over every iteration's
// words: p50-ms, p90-ms (goal: p50 ≤ 300 ms), the words timed and the partials received per
// second of audio. The server is built as `timbre serve` builds it (newBenchEnv).
//
//	go test ./internal/app/ -run '^$' -bench BenchmarkRealtimePartialLatency -benchtime 1x
func BenchmarkRealtimePartialLatency(b *testing.B) {
	e := newBenchEnv(b, store.SQLite, 1)
	pcm, err := benchSpeak(e, rachel, "output_format=pcm_16000", realtimeText)
	if err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	var words, partials int
	var seconds float64
	for b.Loop() {
		s := streamRealtime(b, e.srv.URL, e.keys[0], pcm)
		l, n := s.partialLatencies(b)
		lat, words, partials, seconds = append(lat, l...), words+n, partials+len(s.partials()), seconds+s.seconds
		_ = s.conn.Close(websocket.StatusNormalClosure, "")
		<-s.done
	}
	if len(lat) == 0 {
		b.Fatalf("no word of %d appeared in a partial transcript", words)
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*9/10]), "p90-ms")
	b.ReportMetric(float64(len(lat)), "words-timed")
	b.ReportMetric(float64(words), "words")
	b.ReportMetric(float64(partials)/seconds, "partials/s")
	b.ReportMetric(0, "ns/op")
}
