package app_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"timbre/internal/audio"
	"timbre/internal/engine/enginetest"
	"timbre/internal/store"
)

// BenchmarkSTSStream measures what the stream route of speech to speech gains by converting
// piece by piece: a 33-second recording (ten Harvard sentences by Adam with 0.4 s pauses) to
// Rachel as mp3_44100_128, the time to the first byte and to the last of POST
// …/speech-to-speech/{voice}/stream, beside the time of the whole route, which answers once
// everything is converted. Each iteration runs stream, whole, whole, stream.
//
//	go test ./internal/app/ -run '^$' -bench BenchmarkSTSStream -benchtime 3x
func BenchmarkSTSStream(b *testing.B) {
	e := newBenchEnv(b, store.SQLite, 1)
	ctx := context.Background()
	var rec []int16
	for _, s := range enginetest.HarvardSentences()[:10] {
		mp3, err := benchSpeak(e, adam, "", s)
		if err != nil {
			b.Fatal(err)
		}
		pcm, rate, err := audio.Decode(ctx, mp3)
		if err != nil {
			b.Fatal(err)
		}
		rec = slices.Concat(rec, audio.Resample(pcm, rate, 16000), make([]int16, 16000*4/10))
	}
	ct, body := multipartBody(b, "audio", audio.PCMBytes(rec), map[string]any{"file_format": "pcm_s16le_16"})
	// post returns the times to the first and the last byte of the response.
	post := func(route string) (first, last time.Duration) {
		req, _ := http.NewRequest("POST", e.srv.URL+"/v1/speech-to-speech/"+rachel+route+"?output_format=mp3_44100_128", bytes.NewReader(body))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("xi-api-key", e.keys[0])
		start := time.Now()
		res, err := e.client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer res.Body.Close()
		one := make([]byte, 1)
		if _, err := io.ReadFull(res.Body, one); err != nil || res.StatusCode != 200 {
			b.Fatalf("%s: status %d, %v", route, res.StatusCode, err)
		}
		first = time.Since(start)
		if _, err := io.Copy(io.Discard, res.Body); err != nil {
			b.Fatal(err)
		}
		return first, time.Since(start)
	}
	post("/stream") // the target voice's print is measured once
	var ttfb, streamed, whole time.Duration
	for b.Loop() {
		for _, route := range []string{"/stream", "", "", "/stream"} {
			first, last := post(route)
			if route == "" {
				whole += last
			} else {
				ttfb, streamed = ttfb+first, streamed+last
			}
		}
	}
	n := float64(2 * b.N)
	b.ReportMetric(float64(len(rec))/16000, "recording-s")
	b.ReportMetric(ttfb.Seconds()/n, "stream-first-s")
	b.ReportMetric(streamed.Seconds()/n, "stream-last-s")
	b.ReportMetric(whole.Seconds()/n, "whole-s")
}
