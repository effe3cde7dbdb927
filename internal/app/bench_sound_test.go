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
	"strings"
	"sync"
	"testing"
	"unicode"

	"timbre/internal/audio"
	"timbre/internal/store"
	"timbre/internal/voice"
)

// pocketsphinxModel is where pocketsphinx-en-us installs the US English model.
const pocketsphinxModel = "/usr/share/pocketsphinx/model/en-us"

// BenchmarkSoundRoundTrip measures what Timbre's processing costs in intelligibility: 40 Harvard
// sentences (testdata/harvard.txt, IEEE lists 1–4) are spoken by every premade flite voice through
// Timbre at its defaults (POST /v1/text-to-speech/{voice} with only the text: default model,
// voice settings and output format mp3_44100_128) and by the `flite` command with the same engine
// voice, both are transcribed by pocketsphinx (decoded to 16 kHz mono), and the word error rates
// are compared. Goal: Timbre's mean cost (its WER − raw WER) ≤ 1 point.
//
// The clustergen voices (slt, awb, rms) mix rand() noise into their excitation: the command
// starts each sentence from a fresh process, Timbre from wherever its process's rand() stands,
// so their costs wander by about ±1 point from the noise alone (rms with Adam's lower pitch,
// spoken by the command, scores exactly its raw WER). kal16, a diphone voice, is deterministic.
//
// The work runs once, in the parent; each voice's sub-benchmark reports its figures.
//
//	go test ./internal/app/ -run '^$' -bench BenchmarkSoundRoundTrip
func BenchmarkSoundRoundTrip(b *testing.B) {
	for _, tool := range []string{"flite", "pocketsphinx_batch"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s is not installed", tool)
		}
	}
	if _, err := os.Stat(pocketsphinxModel); err != nil {
		b.Skip("the pocketsphinx en-us model is not installed")
	}
	data, err := os.ReadFile("testdata/harvard.txt")
	if err != nil {
		b.Fatal(err)
	}
	sentences := strings.Split(strings.TrimSpace(string(data)), "\n")
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
			mp3, err := benchSpeak(e, v.ID, s)
			if err != nil {
				b.Fatalf("%s: %v", v.Name, err)
			}
			pcm, rate, err := audio.Decode(ctx, mp3)
			if err != nil {
				b.Fatal(err)
			}
			benchWriteRaw(b, filepath.Join(dir, utt(v, "timbre", i)+".raw"), pcm, rate)

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
			benchWriteRaw(b, filepath.Join(dir, utt(v, "raw", i)+".raw"), pcm, rate)
			ids = append(ids, utt(v, "timbre", i), utt(v, "raw", i))
		}
	}
	hyps := benchTranscribe(b, dir, ids)

	var costs []float64
	for _, v := range voices {
		var edits, words [2]int // [timbre, raw]
		for i, s := range sentences {
			ref := benchWords(s)
			for k, side := range []string{"timbre", "raw"} {
				edits[k] += benchEditDistance(ref, benchWords(hyps[utt(v, side, i)]))
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

// benchSpeak is POST /v1/text-to-speech/{voice} with nothing but the text: every default.
func benchSpeak(e *benchEnv, voiceID, text string) ([]byte, error) {
	body, _ := json.Marshal(map[string]any{"text": text})
	req, err := http.NewRequest("POST", e.srv.URL+"/v1/text-to-speech/"+voiceID, bytes.NewReader(body))
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

// benchWriteRaw stores samples as 16 kHz signed 16-bit little-endian PCM, pocketsphinx's input.
func benchWriteRaw(b *testing.B, path string, pcm []int16, rate int) {
	if rate != 16000 {
		pcm = audio.Resample(pcm, rate, 16000)
	}
	if err := os.WriteFile(path, audio.PCMBytes(pcm), 0o644); err != nil {
		b.Fatal(err)
	}
}

// benchTranscribe runs pocketsphinx_batch over dir's <id>.raw files, two processes (one per CPU
// this machine is assumed to have) over halves of the list, and returns each id's hypothesis.
func benchTranscribe(b *testing.B, dir string, ids []string) map[string]string {
	hyps := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	const parts = 2
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ctl strings.Builder
			for i := p; i < len(ids); i += parts {
				ctl.WriteString(ids[i] + "\n")
			}
			ctlPath, hypPath := filepath.Join(dir, fmt.Sprintf("ctl%d", p)), filepath.Join(dir, fmt.Sprintf("hyp%d", p))
			if err := os.WriteFile(ctlPath, []byte(ctl.String()), 0o644); err != nil {
				b.Error(err)
				return
			}
			cmd := exec.Command("pocketsphinx_batch", "-adcin", "yes", "-adchdr", "0", "-samprate", "16000",
				"-cepdir", dir, "-cepext", ".raw", "-ctl", ctlPath, "-hyp", hypPath,
				"-hmm", pocketsphinxModel+"/en-us", "-lm", pocketsphinxModel+"/en-us.lm.bin",
				"-dict", pocketsphinxModel+"/cmudict-en-us.dict", "-logfn", os.DevNull)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Errorf("pocketsphinx_batch: %v: %.500s", err, out)
				return
			}
			out, err := os.ReadFile(hypPath)
			if err != nil {
				b.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			// Each line: "the words heard (utterance-id score)".
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				open := strings.LastIndexByte(line, '(')
				if open < 0 {
					continue
				}
				if f := strings.Fields(line[open+1:]); len(f) > 0 {
					hyps[f[0]] = strings.TrimSpace(line[:open])
				}
			}
		}()
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	for _, id := range ids {
		if _, ok := hyps[id]; !ok {
			b.Fatalf("pocketsphinx gave no hypothesis for %s", id)
		}
	}
	return hyps
}

// benchWords lower-cases s and splits it into words, keeping apostrophes ("it's", "man's").
func benchWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
}

// benchEditDistance is the word-level Levenshtein distance: substitutions + deletions + insertions.
func benchEditDistance(ref, hyp []string) int {
	prev := make([]int, len(hyp)+1)
	cur := make([]int, len(hyp)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ref); i++ {
		cur[0] = i
		for j := 1; j <= len(hyp); j++ {
			sub := prev[j-1]
			if ref[i-1] != hyp[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(hyp)]
}
