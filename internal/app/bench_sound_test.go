package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/engine/enginetest"
	"timbre/internal/store"
	"timbre/internal/voice"
)

// BenchmarkSoundRoundTrip measures what Timbre's processing costs in intelligibility: 40 Harvard
// sentences (enginetest.HarvardSentences, IEEE lists 1–4) are spoken by every premade flite voice through
// Timbre at its defaults (POST /v1/text-to-speech/{voice} with only the text: default model,
// voice settings and output format mp3_44100_128) and by the `flite` command with the same engine
// voice, both are transcribed by pocketsphinx (decoded to 16 kHz mono), and the word error rates
// are compared. Goal: Timbre's mean cost (its WER − raw WER) ≤ 1 point.
//
// Both sides speak the same samples before processing: without a seed, flite's rand() noise (the
// clustergen voices slt, awb and rms mix it into their excitation) starts where the command's
// does (TestFliteNeutralIsTheVoice). Adam's lower pitch is part of his voice, so his raw side is
// spoken with the command's default pitch and the cost includes that difference.
//
// The work runs once, in the parent; each voice's sub-benchmark reports its figures.
//
//	go test ./internal/app/ -run '^$' -bench BenchmarkSoundRoundTrip
func BenchmarkSoundRoundTrip(b *testing.B) {
	if _, err := exec.LookPath("flite"); err != nil {
		b.Skip("flite is not installed")
	}
	if why := enginetest.PocketsphinxBatchAvailable(); why != "" {
		b.Skip(why)
	}
	sentences := enginetest.HarvardSentences()
	var voices []voice.Premade
	for _, v := range voice.Catalogue {
		if v.Engine == "flite" {
			voices = append(voices, v)
		}
	}
	e := newBenchEnv(b, store.SQLite, 1)
	ctx := context.Background()
	dir := b.TempDir()

	// Every utterance as 16 kHz raw PCM: <voice>-<side>-<n>.raw, side timbre or raw.
	utt := func(v voice.Premade, side string, i int) string {
		return fmt.Sprintf("%s-%s-%02d", v.EngineVoice, side, i)
	}
	var ids []string
	for _, v := range voices {
		for i, s := range sentences {
			mp3, err := benchSpeak(e, v.ID, "", s)
			if err != nil {
				b.Fatalf("%s: %v", v.Name, err)
			}
			pcm, rate, err := audio.Decode(ctx, mp3)
			if err != nil {
				b.Fatal(err)
			}
			if err := enginetest.WriteRaw(filepath.Join(dir, utt(v, "timbre", i)+".raw"), pcm, rate); err != nil {
				b.Fatal(err)
			}

			wav := filepath.Join(dir, "flite.wav")
			if out, err := exec.Command("flite", "-voice", v.EngineVoice, "-t", s, "-o", wav).CombinedOutput(); err != nil {
				b.Fatalf("flite: %v: %s", err, out)
			}
			wavData, err := os.ReadFile(wav)
			if err != nil {
				b.Fatal(err)
			}
			if pcm, rate, err = audio.Decode(ctx, wavData); err != nil {
				b.Fatal(err)
			}
			if err := enginetest.WriteRaw(filepath.Join(dir, utt(v, "raw", i)+".raw"), pcm, rate); err != nil {
				b.Fatal(err)
			}
			ids = append(ids, utt(v, "timbre", i), utt(v, "raw", i))
		}
	}
	// Two processes: one per CPU this machine is assumed to have.
	batch, err := enginetest.PocketsphinxBatch(dir, ids, 2)
	if err != nil {
		b.Fatal(err)
	}
	hyps := batch.Hyps

	var costs []float64
	for _, v := range voices {
		var edits, words [2]int // [timbre, raw]
		for i, s := range sentences {
			ref := enginetest.Words(s)
			for k, side := range []string{"timbre", "raw"} {
				edits[k] += enginetest.EditDistance(ref, enginetest.Words(hyps[utt(v, side, i)]))
				words[k] += len(ref)
			}
		}
		timbre, raw := 100*float64(edits[0])/float64(words[0]), 100*float64(edits[1])/float64(words[1])
		costs = append(costs, timbre-raw)
		b.Run(v.Name+"-"+v.EngineVoice, func(b *testing.B) {
			b.ReportMetric(timbre, "timbre-wer-%")
			b.ReportMetric(raw, "raw-wer-%")
			b.ReportMetric(timbre-raw, "cost-points")
		})
	}
	mean := 0.0
	for _, c := range costs {
		mean += c / float64(len(costs))
	}
	b.Run("mean", func(b *testing.B) { b.ReportMetric(mean, "cost-points") })
}

// benchSpeak is POST /v1/text-to-speech/{voice}?{query} with nothing but the text in the body
// (query "": every default).
func benchSpeak(e *benchEnv, voiceID, query, text string) ([]byte, error) {
	body, _ := json.Marshal(map[string]any{"text": text})
	req, err := http.NewRequest("POST", e.srv.URL+"/v1/text-to-speech/"+voiceID+"?"+query, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("xi-api-key", e.keys[0])
	res, err := e.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err == nil && res.StatusCode != http.StatusOK {
		err = fmt.Errorf("status %d: %.300s", res.StatusCode, data)
	}
	return data, err
}
