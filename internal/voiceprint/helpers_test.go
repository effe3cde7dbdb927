package voiceprint

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/engine/enginetest"
)

var (
	fliteOnce sync.Once
	fliteEng  *engine.Flite
	fliteErr  error
)

func flite(t testing.TB) *engine.Flite {
	t.Helper()
	fliteOnce.Do(func() { fliteEng, fliteErr = engine.NewFlite() })
	if fliteErr != nil {
		t.Fatal(fliteErr)
	}
	return fliteEng
}

// say synthesizes sentences (joined into one passage) with a voice of syn.
func say(t testing.TB, syn engine.Synthesizer, voice string, pr engine.Prosody, sentences []string) engine.PCM {
	t.Helper()
	res, err := syn.Synthesize(context.Background(), engine.Request{Text: strings.Join(sentences, " "), Voice: voice, Prosody: pr})
	if err != nil {
		t.Fatalf("%s %s: %v", syn.Name(), voice, err)
	}
	return res.Audio
}

// ffmpegFilter runs pcm through an ffmpeg audio filter chain (real ffmpeg) and returns 16 kHz
// audio.
func ffmpegFilter(t testing.TB, pcm engine.PCM, filter string) engine.PCM {
	t.Helper()
	if _, err := exec.LookPath(audio.FFmpeg); err != nil {
		t.Skip("ffmpeg is not installed")
	}
	cmd := exec.Command(audio.FFmpeg, "-hide_banner", "-loglevel", "error", "-f", "s16le", "-ar", strconv.Itoa(pcm.SampleRate), "-ac", "1", "-i", "pipe:0",
		"-af", filter, "-f", "s16le", "-ar", "16000", "-ac", "1", "pipe:1")
	cmd.Stdin = bytes.NewReader(audio.PCMBytes(pcm.Samples))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("ffmpeg -af %s: %v: %s", filter, err, errb.String())
	}
	return engine.PCM{Samples: audio.PCMSamples(out.Bytes()), SampleRate: 16000}
}

func harvard(from, to int) []string { return enginetest.HarvardSentences()[from:to] }

func strconvFormat(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// withNoise adds white noise snr dB below the audio's RMS level (a fixed seed).
func withNoise(clean engine.PCM, snr float64) engine.PCM {
	var e float64
	for _, s := range clean.Samples {
		e += float64(s) * float64(s)
	}
	sd := math.Sqrt(e/float64(len(clean.Samples))) * math.Pow(10, -snr/20)
	rng := rand.New(rand.NewPCG(3, 4))
	out := engine.PCM{SampleRate: clean.SampleRate, Samples: make([]int16, len(clean.Samples))}
	for i, s := range clean.Samples {
		out.Samples[i] = int16(max(-32768, min(32767, math.Round(float64(s)+rng.NormFloat64()*sd))))
	}
	return out
}
