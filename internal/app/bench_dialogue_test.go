package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"timbre/internal/store"
)

// BenchmarkDialogue measures text to dialogue's overhead: the three lines of dialogueLines
// through POST /v1/text-to-dialogue (pcm_16000) against the same lines through
// POST /v1/text-to-speech one after the other (what a client would do without the route). The
// dialogue adds the tags, the turn gaps, one charge and one history item; goal ≤ 1.25× the
// plain requests' time.
//
//	go test ./internal/app/ -run '^$' -bench BenchmarkDialogue -benchtime 10x
func BenchmarkDialogue(b *testing.B) {
	e := newBenchEnv(b, store.SQLite, 1)
	post := func(path string, body any) error {
		data, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", e.srv.URL+path, bytes.NewReader(data))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("xi-api-key", e.keys[0])
		res, err := e.client.Do(req)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		if _, err := io.Copy(io.Discard, res.Body); err != nil {
			return err
		}
		if res.StatusCode != 200 {
			return fmt.Errorf("%s: status %d", path, res.StatusCode)
		}
		return nil
	}
	dialogue := func() error {
		return post("/v1/text-to-dialogue?output_format=pcm_16000", map[string]any{"inputs": dialogueLines, "seed": 1})
	}
	plain := func() error {
		for _, l := range dialogueLines {
			if err := post("/v1/text-to-speech/"+l["voice_id"]+"?output_format=pcm_16000", map[string]any{"text": l["text"]}); err != nil {
				return err
			}
		}
		return nil
	}
	if err := dialogue(); err != nil { // warm up the engines
		b.Fatal(err)
	}
	var dt, pt time.Duration
	b.ResetTimer()
	for b.Loop() {
		// ABBA, so load that changes during an iteration weighs on both sides.
		for _, ph := range []struct {
			run func() error
			sum *time.Duration
		}{{plain, &pt}, {dialogue, &dt}, {dialogue, &dt}, {plain, &pt}} {
			start := time.Now()
			if err := ph.run(); err != nil {
				b.Fatal(err)
			}
			*ph.sum += time.Since(start)
		}
	}
	b.ReportMetric(float64(dt.Milliseconds())/float64(2*b.N), "dialogue-ms")
	b.ReportMetric(float64(pt.Milliseconds())/float64(2*b.N), "plain-ms")
	b.ReportMetric(float64(dt)/float64(pt), "ratio")
}
