package watermark

import (
	"context"
	"fmt"
	"slices"
	"syscall"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/engine"
)

// BenchmarkMark measures the embedder on the streaming path: espeak-ng speech marked in
// 1,024-sample chunks. cpu-ns/audio-s is the process's CPU time per second of audio (steady when
// other work shares the machine, unlike ns/op); espeak_share is that as a fraction of espeak-ng's
// own CPU time to synthesize the same audio.
func BenchmarkMark(b *testing.B) {
	speech := speechClip(b, testText)
	synth := espeakNsPerAudioSecond(b)
	for _, rate := range []int{16000, 22050, 24000, 44100} {
		b.Run(fmt.Sprint(rate), func(b *testing.B) {
			wm := newTestWatermark(b)
			src := audio.Resample(speech, 22050, rate)
			buf := make([]int16, len(src))
			b.SetBytes(int64(2 * len(src)))
			cpu0 := cpuTime()
			for b.Loop() {
				copy(buf, src)
				e, _ := wm.NewEmbedder(rate)
				for rest := buf; len(rest) > 0; {
					n := min(len(rest), 1024)
					e.Mark(rest[:n])
					rest = rest[n:]
				}
			}
			perSec := float64(cpuTime()-cpu0) / float64(b.N) / (float64(len(src)) / float64(rate))
			b.ReportMetric(perSec, "cpu-ns/audio-s")
			b.ReportMetric(perSec/synth, "espeak_share")
		})
	}
}

// BenchmarkDetect measures the detector (CPU time per second of audio) on a 2-second cut at
// 16 kHz and a 30-second file at 44.1 kHz.
func BenchmarkDetect(b *testing.B) {
	speech := speechClip(b, testText)
	wm := newTestWatermark(b)
	for _, c := range []struct {
		rate int
		sec  float64
	}{{16000, 2}, {44100, 30}} {
		b.Run(fmt.Sprintf("%gs@%d", c.sec, c.rate), func(b *testing.B) {
			src := audio.Resample(speech, 22050, c.rate)
			for len(src) < int(c.sec*float64(c.rate)) {
				src = slices.Concat(src, src)
			}
			src = src[:int(c.sec*float64(c.rate))]
			e, _ := wm.NewEmbedder(c.rate)
			e.Mark(src)
			cpu0 := cpuTime()
			for b.Loop() {
				if !wm.Detect(src, c.rate).Detected {
					b.Fatal("not detected")
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/c.sec, "cpu-ns/audio-s")
		})
	}
}

// espeakNsPerAudioSecond is the CPU time espeak-ng (in process) takes per second of testText.
func espeakNsPerAudioSecond(b *testing.B) float64 {
	e, err := engine.NewEspeak()
	if err != nil {
		b.Fatal(err)
	}
	var audioSec float64
	start := cpuTime()
	for range 20 {
		res, err := e.Synthesize(context.Background(), engine.Request{Text: testText, Voice: "en-us"})
		if err != nil {
			b.Fatal(err)
		}
		audioSec += res.Audio.Seconds()
	}
	return float64(cpuTime()-start) / audioSec
}

// cpuTime is the CPU time this process has used (user and system), in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
