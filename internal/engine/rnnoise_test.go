package engine

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"timbre/internal/engine/enginetest"
)

// Noises mixed into speech in the isolation tests, each as long as n samples at rate.
var testNoises = map[string]func(n, rate int, rng *rand.Rand) []float64{
	"white": func(n, _ int, rng *rand.Rand) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = rng.NormFloat64()
		}
		return out
	},
	// Pink: Paul Kellet's filter over white noise (-3 dB per octave).
	"pink": func(n, _ int, rng *rand.Rand) []float64 {
		out := make([]float64, n)
		var b0, b1, b2, b3, b4, b5, b6 float64
		for i := range out {
			w := rng.NormFloat64()
			b0 = 0.99886*b0 + w*0.0555179
			b1 = 0.99332*b1 + w*0.0750759
			b2 = 0.96900*b2 + w*0.1538520
			b3 = 0.86650*b3 + w*0.3104856
			b4 = 0.55000*b4 + w*0.5329522
			b5 = -0.7616*b5 - w*0.0168980
			out[i] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w*0.5362
			b6 = w * 0.115926
		}
		return out
	},
	// Mains hum: 50 Hz and its harmonics, with a little hiss, as a badly grounded microphone gives.
	"hum": func(n, rate int, rng *rand.Rand) []float64 {
		out := make([]float64, n)
		for i := range out {
			t := float64(i) / float64(rate)
			for h := 1; h <= 6; h++ {
				out[i] += math.Sin(2*math.Pi*50*float64(h)*t+float64(h)) / float64(h)
			}
			out[i] += 0.05 * rng.NormFloat64()
		}
		return out
	},
}

// mixAtSNR adds noise to speech so that the speech's power (over its voiced 20 ms frames) equals
// the noise's power times 10^(snr/10).
func mixAtSNR(speech PCM, noise []float64, snr float64) PCM {
	var sp, np float64
	var n int
	for _, f := range speechFrames(speech, true) {
		for _, s := range speech.Samples[f[0]:f[1]] {
			sp += float64(s) * float64(s)
			n++
		}
	}
	sp /= float64(n)
	for _, x := range noise {
		np += x * x
	}
	np /= float64(len(noise))
	gain := math.Sqrt(sp / np / math.Pow(10, snr/10))
	out := PCM{Samples: make([]int16, len(speech.Samples)), SampleRate: speech.SampleRate}
	for i, s := range speech.Samples {
		out.Samples[i] = clampInt16(float32(float64(s) + gain*noise[i]))
	}
	return out
}

// speechFrames are the 20 ms frames of clean speech that are voiced (voiced=true: within 30 dB
// of the loudest frame) or silent (exactly zero: the pauses between sentences).
func speechFrames(clean PCM, voiced bool) [][2]int {
	size := clean.SampleRate / 50
	var peak float64
	energy := func(s []int16) float64 {
		var e float64
		for _, x := range s {
			e += float64(x) * float64(x)
		}
		return e / float64(len(s))
	}
	for i := 0; i+size <= len(clean.Samples); i += size {
		peak = max(peak, energy(clean.Samples[i:i+size]))
	}
	var out [][2]int
	for i := 0; i+size <= len(clean.Samples); i += size {
		e := energy(clean.Samples[i : i+size])
		if (voiced && e > peak/1000) || (!voiced && e == 0) {
			out = append(out, [2]int{i, i + size})
		}
	}
	return out
}

// pauseLevel is the RMS level (dB) of pcm over the frames where clean is silent.
func pauseLevel(pcm PCM, pauses [][2]int) float64 {
	var e float64
	var n int
	for _, f := range pauses {
		for _, s := range pcm.Samples[f[0]:f[1]] {
			e += float64(s) * float64(s)
			n++
		}
	}
	return 10 * math.Log10(e/float64(n)+1e-9)
}

// isolationNoises are the noises the isolation floor is measured with, in order.
var isolationNoises = []string{"white", "pink", "hum"}

// isolationScene is Harvard sentences spoken by Timbre's flite voice with pauses between them
// (and before and after: noise alone at the start is where a denoiser is weakest), ready to be
// mixed with noise, isolated and transcribed.
type isolationScene struct {
	speech PCM
	pauses [][2]int // the silent frames between sentences
	spans  [][2]int // each sentence with half of each pause around it
	refs   []string
}

func newIsolationScene(tb testing.TB) isolationScene {
	tb.Helper()
	const sentences, pause = 4, 0.8
	clips := harvardSpeech(tb, "rms", 0, sentences)
	sc := isolationScene{refs: enginetest.HarvardSentences()[0:sentences]}
	sc.speech = joinWithPauses(append(append([]PCM{{SampleRate: clips[0].SampleRate}}, clips...), PCM{}), pause)
	sc.pauses = speechFrames(sc.speech, false)
	if len(sc.pauses) < 50 {
		tb.Fatalf("only %d silent frames to measure", len(sc.pauses))
	}
	at, gap := int(pause*float64(sc.speech.SampleRate)), int(pause*float64(sc.speech.SampleRate))
	for _, c := range clips {
		sc.spans = append(sc.spans, [2]int{at - gap/2, at + len(c.Samples) + gap/2})
		at += len(c.Samples) + gap
	}
	return sc
}

// isolationResult is what isolation did to speech mixed with one noise at 0 dB SNR.
type isolationResult struct {
	floorDrop          float64 // dB the noise in the pauses fell
	werNoisy, werClean float64 // the recognizer's word error rate (%) before and after
	isolateSeconds     float64 // wall time of the isolation alone
	audioSeconds       float64
}

// measure mixes the scene's speech with the noise at 0 dB SNR, isolates it (checking that the
// length and rate are kept) and transcribes both, sentence by sentence.
func (sc isolationScene) measure(tb testing.TB, r *Pocketsphinx, iso *RNNoise, noise string) isolationResult {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, uint64(len(noise))))
	noisy := mixAtSNR(sc.speech, testNoises[noise](len(sc.speech.Samples), sc.speech.SampleRate, rng), 0)
	t0 := time.Now()
	clean, err := iso.Isolate(context.Background(), noisy)
	if err != nil {
		tb.Fatal(err)
	}
	res := isolationResult{isolateSeconds: time.Since(t0).Seconds(), audioSeconds: noisy.Seconds()}
	if len(clean.Samples) != len(noisy.Samples) || clean.SampleRate != noisy.SampleRate {
		tb.Fatalf("isolated %d samples at %d Hz from %d at %d", len(clean.Samples), clean.SampleRate, len(noisy.Samples), noisy.SampleRate)
	}
	res.floorDrop = pauseLevel(noisy, sc.pauses) - pauseLevel(clean, sc.pauses)
	res.werNoisy = enginetest.WER(sc.refs, sc.transcribe(tb, r, noisy))
	res.werClean = enginetest.WER(sc.refs, sc.transcribe(tb, r, clean))
	return res
}

// transcribe transcribes each sentence's span of p on its own, two at a time (pocketsphinx is
// slow on long noisy audio it cannot split at silences).
func (sc isolationScene) transcribe(tb testing.TB, r *Pocketsphinx, p PCM) []string {
	tb.Helper()
	hyps := make([]string, len(sc.spans))
	errs := make([]error, len(sc.spans))
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(sc.spans); i += 2 {
				sp := sc.spans[i]
				tr, err := r.Transcribe(context.Background(), PCM{Samples: p.Samples[sp[0]:sp[1]], SampleRate: p.SampleRate}, TranscribeOptions{Language: "en"})
				if err != nil {
					errs[i] = err
					return
				}
				hyps[i] = tr.Text
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		tb.Fatal(err)
	}
	return hyps
}

// TestRNNoiseIsolation is the quality floor: Harvard sentences spoken by Timbre's flite
// voice with pauses between them, mixed with white, pink and hum noise at 0 dB SNR. After
// isolation the noise in the pauses must be at least 15 dB lower, the duration exactly the
// same, and the recognizer's word error rate no higher than on the noisy audio.
// BenchmarkRNNoiseIsolation prints the same figures.
func TestRNNoiseIsolation(t *testing.T) {
	r := sharedPocketsphinx(t)
	sc := newIsolationScene(t)
	iso := NewRNNoise()
	defer iso.Close(context.Background())
	for _, name := range isolationNoises {
		t.Run(name, func(t *testing.T) {
			m := sc.measure(t, r, iso, name)
			t.Logf("%s at 0 dB SNR: noise floor in pauses -%.1f dB; WER noisy %.1f %%, isolated %.1f %%", name, m.floorDrop, m.werNoisy, m.werClean)
			if m.floorDrop < 15 {
				t.Errorf("the noise floor fell %.1f dB, want at least 15", m.floorDrop)
			}
			if m.werClean > m.werNoisy {
				t.Errorf("WER rose from %.1f %% to %.1f %%", m.werNoisy, m.werClean)
			}
		})
	}
}

// BenchmarkRNNoiseIsolation reports TestRNNoiseIsolation's figures for each noise at 0 dB SNR:
// how far the noise floor in the pauses falls (floor-drop-dB), the recognizer's word error rate
// on the noisy and the isolated audio (noisy-wer-%, isolated-wer-%), and the isolation's own
// speed (x-rt, audio seconds per wall second). Each iteration mixes, isolates and transcribes
// again; the last one is reported.
//
//	go test ./internal/engine/ -run '^$' -bench BenchmarkRNNoiseIsolation -benchtime 1x
func BenchmarkRNNoiseIsolation(b *testing.B) {
	r := sharedPocketsphinx(b)
	sc := newIsolationScene(b)
	iso := NewRNNoise()
	defer iso.Close(context.Background())
	// The first isolation compiles the module; x-rt is the speed after that.
	if _, err := iso.Isolate(context.Background(), PCM{Samples: make([]int16, 4800), SampleRate: 48000}); err != nil {
		b.Fatal(err)
	}
	for _, name := range isolationNoises {
		b.Run(name, func(b *testing.B) {
			var m isolationResult
			for b.Loop() {
				m = sc.measure(b, r, iso, name)
			}
			b.ReportMetric(m.floorDrop, "floor-drop-dB")
			b.ReportMetric(m.werNoisy, "noisy-wer-%")
			b.ReportMetric(m.werClean, "isolated-wer-%")
			b.ReportMetric(m.audioSeconds/m.isolateSeconds, "x-rt")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// TestRNNoiseKeepsLengthAndRate: any rate in, the same rate and length out; silence stays
// silent; a cancelled context stops it.
func TestRNNoiseKeepsLengthAndRate(t *testing.T) {
	iso := NewRNNoise()
	defer iso.Close(context.Background())
	for _, rate := range []int{8000, 16000, 22050, 44100, 48000} {
		for _, n := range []int{1, 479, 481, rate/10 + 7} {
			out, err := iso.Isolate(context.Background(), PCM{Samples: make([]int16, n), SampleRate: rate})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Samples) != n || out.SampleRate != rate {
				t.Errorf("%d samples at %d Hz became %d at %d", n, rate, len(out.Samples), out.SampleRate)
			}
			for _, s := range out.Samples {
				if s < -1 || s > 1 {
					t.Fatalf("silence at %d Hz came out as %d", rate, s)
				}
			}
		}
	}
	// Streamed: pieces as it goes, the same samples as the whole.
	tone := PCM{Samples: make([]int16, 3*16000), SampleRate: 16000}
	for i := range tone.Samples {
		tone.Samples[i] = int16(3000 * math.Sin(float64(i)*0.2))
	}
	whole, err := iso.Isolate(context.Background(), tone)
	if err != nil {
		t.Fatal(err)
	}
	var pieces int
	var streamed []int16
	err = iso.IsolateStream(context.Background(), tone, func(s []int16) error {
		pieces++
		streamed = append(streamed, s...)
		return nil
	})
	if err != nil || pieces < 4 || !slices.Equal(streamed, whole.Samples) {
		t.Fatalf("stream: %d pieces, %d samples (whole %d), %v", pieces, len(streamed), len(whole.Samples), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := iso.Isolate(ctx, PCM{Samples: make([]int16, 48000*5), SampleRate: 48000}); err == nil {
		t.Error("a cancelled context isolated anyway")
	}
}

// BenchmarkRNNoise reports isolation speed as seconds of audio per wall-clock second (xRT) and
// per CPU second (xRT/cpu),
// for 10 s of loud pink noise at 44.1 kHz (resampled both ways) and at 48 kHz.
func BenchmarkRNNoise(b *testing.B) {
	iso := NewRNNoise()
	defer iso.Close(context.Background())
	for _, rate := range []int{44100, 48000} {
		b.Run(map[int]string{44100: "44k1", 48000: "48k"}[rate], func(b *testing.B) {
			rng := rand.New(rand.NewPCG(7, 7))
			noise := testNoises["pink"](10*rate, rate, rng)
			pcm := PCM{Samples: make([]int16, len(noise)), SampleRate: rate}
			for i, x := range noise {
				pcm.Samples[i] = clampInt16(float32(3000 * x))
			}
			if _, err := iso.Isolate(context.Background(), pcm); err != nil { // compiles the module
				b.Fatal(err)
			}
			var before syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
			b.ResetTimer()
			for b.Loop() {
				if _, err := iso.Isolate(context.Background(), pcm); err != nil {
					b.Fatal(err)
				}
			}
			var after syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
			cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
			b.ReportMetric(10*float64(b.N)/b.Elapsed().Seconds(), "xRT")
			// On a shared machine wall time undercounts; audio seconds per CPU second does not.
			b.ReportMetric(10*float64(b.N)/cpu.Seconds(), "xRT/cpu")
		})
	}
}
