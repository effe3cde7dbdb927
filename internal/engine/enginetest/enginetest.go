// Package enginetest holds what tests and benchmarks of speech quality share: the Harvard
// sentences, word error rates, and the pocketsphinx_batch command as the reference recognizer.
package enginetest

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"timbre/internal/audio"
)

//go:embed harvard.txt
var harvard string

// HarvardSentences are the IEEE "Harvard" sentences of lists 1–4 (40 phonetically balanced
// English sentences), the usual material for intelligibility tests.
func HarvardSentences() []string {
	return strings.Split(strings.TrimSpace(harvard), "\n")
}

// Words lower-cases s and splits it into words, keeping apostrophes ("it's", "man's").
func Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// EditDistance is the word-level Levenshtein distance: substitutions + deletions + insertions.
func EditDistance(ref, hyp []string) int {
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

// WER is the word error rate in percent of hypotheses hyps against references refs (pairs in
// the same order): all edits over all reference words.
func WER(refs, hyps []string) float64 {
	var edits, words int
	for i, ref := range refs {
		r := Words(ref)
		edits += EditDistance(r, Words(hyps[i]))
		words += len(r)
	}
	if words == 0 {
		return 0
	}
	return 100 * float64(edits) / float64(words)
}

// PocketsphinxModelDir is where Debian's pocketsphinx-en-us installs the US English model.
const PocketsphinxModelDir = "/usr/share/pocketsphinx/model/en-us"

// PocketsphinxBatchAvailable says why the pocketsphinx_batch reference cannot run ("" when it can).
func PocketsphinxBatchAvailable() string {
	if _, err := exec.LookPath("pocketsphinx_batch"); err != nil {
		return "pocketsphinx_batch is not installed (scripts/install-deps.sh installs pocketsphinx)"
	}
	if _, err := os.Stat(filepath.Join(PocketsphinxModelDir, "en-us.lm.bin")); err != nil {
		return "the pocketsphinx en-us model is not installed (pocketsphinx-en-us)"
	}
	return ""
}

// WriteRaw stores samples as 16 kHz signed 16-bit little-endian PCM, pocketsphinx's input.
func WriteRaw(path string, pcm []int16, rate int) error {
	if rate != 16000 {
		pcm = audio.Resample(pcm, rate, 16000)
	}
	return os.WriteFile(path, audio.PCMBytes(pcm), 0o644)
}

// BatchResult is what PocketsphinxBatch heard and how long its decoding took.
type BatchResult struct {
	Hyps map[string]string // utterance id → hypothesis
	// DecodeSeconds is the wall time the command reports for decoding (its "TOTAL … wall"
	// line), summed over processes: model loading is not included.
	DecodeSeconds float64
	CPUSeconds    float64 // the CPU time it reports for decoding
	SpeechSeconds float64 // the audio decoded, as the command counts it
}

var totalLine = regexp.MustCompile(`TOTAL ([0-9.]+) seconds speech, ([0-9.]+) seconds CPU, ([0-9.]+) seconds wall`)

// PocketsphinxBatch runs the pocketsphinx_batch command with its default settings over dir's
// <id>.raw files (16 kHz s16le), in `processes` processes over interleaved parts of ids, and
// returns each id's hypothesis.
func PocketsphinxBatch(dir string, ids []string, processes int) (BatchResult, error) {
	res := BatchResult{Hyps: map[string]string{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, processes)
	for p := range processes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[p] = func() error {
				var ctl strings.Builder
				for i := p; i < len(ids); i += processes {
					ctl.WriteString(ids[i] + "\n")
				}
				ctlPath := filepath.Join(dir, fmt.Sprintf("ctl%d", p))
				hypPath := filepath.Join(dir, fmt.Sprintf("hyp%d", p))
				logPath := filepath.Join(dir, fmt.Sprintf("log%d", p))
				if err := os.WriteFile(ctlPath, []byte(ctl.String()), 0o644); err != nil {
					return err
				}
				// The command appends to its log: an earlier run's TOTAL line would be read first.
				if err := os.Remove(logPath); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
				cmd := exec.Command("pocketsphinx_batch", "-adcin", "yes", "-adchdr", "0", "-samprate", "16000",
					"-cepdir", dir, "-cepext", ".raw", "-ctl", ctlPath, "-hyp", hypPath,
					"-hmm", PocketsphinxModelDir+"/en-us", "-lm", PocketsphinxModelDir+"/en-us.lm.bin",
					"-dict", PocketsphinxModelDir+"/cmudict-en-us.dict", "-logfn", logPath)
				if out, err := cmd.CombinedOutput(); err != nil {
					return fmt.Errorf("pocketsphinx_batch: %v: %.500s", err, out)
				}
				out, err := os.ReadFile(hypPath)
				if err != nil {
					return err
				}
				log, err := os.ReadFile(logPath)
				if err != nil {
					return err
				}
				mu.Lock()
				defer mu.Unlock()
				if m := totalLine.FindSubmatch(log); m != nil {
					speech, _ := strconv.ParseFloat(string(m[1]), 64)
					cpu, _ := strconv.ParseFloat(string(m[2]), 64)
					wall, _ := strconv.ParseFloat(string(m[3]), 64)
					res.SpeechSeconds += speech
					res.CPUSeconds += cpu
					res.DecodeSeconds += wall
				}
				// Each line: "the words heard (utterance-id score)".
				for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
					open := strings.LastIndexByte(line, '(')
					if open < 0 {
						continue
					}
					if f := strings.Fields(line[open+1:]); len(f) > 0 {
						res.Hyps[f[0]] = strings.TrimSpace(line[:open])
					}
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	for _, id := range ids {
		if _, ok := res.Hyps[id]; !ok {
			return res, fmt.Errorf("pocketsphinx_batch gave no hypothesis for %s", id)
		}
	}
	return res, nil
}
