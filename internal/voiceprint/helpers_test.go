package voiceprint

import (
	"bytes"
	"context"
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
