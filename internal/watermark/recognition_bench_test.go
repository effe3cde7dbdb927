package watermark

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"timbre/internal/engine"
	"timbre/internal/engine/enginetest"
)

// BenchmarkRecognitionCost measures what the mark costs speech recognition: the 40 Harvard
// sentences spoken by each flite voice (neutral prosody), once as the engine made them and once
// marked, are transcribed by the pocketsphinx_batch command and the word error rates compared.
// This is the mark's share of the "sound at the defaults" goal (BenchmarkSoundRoundTrip in
// internal/app, ≤ 1 point for all of Timbre's processing).
//
// Every iteration marks with another key (the test key, then keys derived from it), and the
// figures are means over the keys: which words flip depends on the key, so one key's figure
// scatters by about half a point around the mark's real cost (one word is 0.3 points of one
// voice, 0.08 of the mean). The unmarked audio is transcribed once.
//
// Measured (2026-11-25, 8 keys, raw 26.12 %): the wide band's mark, which flite's 16 kHz audio
// carries, costs 0.23 points (−0.16 to +0.72 by key; 0.33 before its amplitude
// ramped across each block, see Embedder). The speech band's mark cost 1.26 (0.64–1.92
// by key), and nearly as much scaled by 0.8 (1.27) or 0.6 (1.09): the recogniser heard it
// wherever it could still be found. ±1 LSB of random noise on the same audio costs 0.17
// (6 draws), the floor of any inaudible change.
//
//	go test ./internal/watermark/ -run '^$' -bench BenchmarkRecognitionCost -benchtime 8x
func BenchmarkRecognitionCost(b *testing.B) {
	if why := enginetest.PocketsphinxBatchAvailable(); why != "" {
		b.Skip(why)
	}
	flite, err := engine.NewFlite()
	if err != nil {
		b.Skip(err)
	}
	sentences := enginetest.HarvardSentences()
	voices := []string{"slt", "awb", "rms", "kal16"}
	type clip struct {
		voice string
		i     int
		pcm   []int16
		rate  int
	}
	var clips []clip
	for _, v := range voices {
		for i, s := range sentences {
			res, err := flite.Synthesize(context.Background(), engine.Request{Text: s, Voice: v,
				Prosody: engine.Prosody{Rate: 1, Pitch: 50, PitchRange: 50}})
			if err != nil {
				b.Fatal(err)
			}
			clips = append(clips, clip{v, i, res.Audio.Samples, res.Audio.SampleRate})
		}
	}
	// wer transcribes every clip as side made it and returns each voice's word error rate (%).
	wer := func(side string, make func(clip) ([]int16, error)) map[string]float64 {
		dir := b.TempDir()
		utt := func(c clip) string { return fmt.Sprintf("%s-%s-%02d", c.voice, side, c.i) }
		var ids []string
		for _, c := range clips {
			pcm, err := make(c)
			if err != nil {
				b.Fatal(err)
			}
			if err := enginetest.WriteRaw(filepath.Join(dir, utt(c)+".raw"), pcm, c.rate); err != nil {
				b.Fatal(err)
			}
			ids = append(ids, utt(c))
		}
		batch, err := enginetest.PocketsphinxBatch(dir, ids, 2)
		if err != nil {
			b.Fatal(err)
		}
		edits, words := map[string]int{}, map[string]int{}
		for _, c := range clips {
			ref := enginetest.Words(sentences[c.i])
			edits[c.voice] += enginetest.EditDistance(ref, enginetest.Words(batch.Hyps[utt(c)]))
			words[c.voice] += len(ref)
		}
		out := map[string]float64{}
		for _, v := range voices {
			out[v] = 100 * float64(edits[v]) / float64(words[v])
		}
		return out
	}
	raw := wer("raw", func(c clip) ([]int16, error) { return c.pcm, nil })

	marked := map[string]float64{} // summed over keys
	lo, hi := 1e9, -1e9            // the mean cost's range over keys
	keys := 0
	for b.Loop() {
		key := testKey
		if keys > 0 {
			key = fmt.Appendf(slices.Clone(testKey), "-%d", keys)
		}
		wm, err := New(key)
		if err != nil {
			b.Fatal(err)
		}
		m := wer(fmt.Sprintf("marked%d", keys), func(c clip) ([]int16, error) {
			e, err := wm.NewEmbedder(c.rate)
			if err != nil {
				return nil, err
			}
			x := slices.Clone(c.pcm)
			e.Mark(x)
			return x, nil
		})
		var cost float64
		for _, v := range voices {
			marked[v] += m[v]
			cost += (m[v] - raw[v]) / float64(len(voices))
		}
		lo, hi = min(lo, cost), max(hi, cost)
		keys++
	}
	b.StopTimer()
	var meanRaw, meanMarked float64
	for _, v := range voices {
		w := marked[v] / float64(keys)
		meanRaw += raw[v] / float64(len(voices))
		meanMarked += w / float64(len(voices))
		b.Run(v, func(b *testing.B) {
			b.ReportMetric(raw[v], "raw-wer-%")
			b.ReportMetric(w, "marked-wer-%")
			b.ReportMetric(w-raw[v], "cost-points")
		})
	}
	b.Run("mean", func(b *testing.B) {
		b.ReportMetric(meanRaw, "raw-wer-%")
		b.ReportMetric(meanMarked, "marked-wer-%")
		b.ReportMetric(meanMarked-meanRaw, "cost-points")
		b.ReportMetric(lo, "lowest-key-cost")
		b.ReportMetric(hi, "highest-key-cost")
		b.ReportMetric(float64(keys), "keys")
	})
}
