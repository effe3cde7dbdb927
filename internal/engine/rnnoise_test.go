package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
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

// TestRNNoiseIsolation is the quality floor: Harvard sentences spoken by Timbre's flite
// voice with pauses between them, mixed with white, pink and hum noise at 0 dB SNR. After
// isolation the noise in the pauses must be at least 15 dB lower, the duration exactly the
// same, and the recognizer's word error rate no higher than on the noisy audio.
func TestRNNoiseIsolation(t *testing.T) {
	r := sharedPocketsphinx(t)
	const sentences, pause = 4, 0.8
	clips := harvardSpeech(t, "rms", 0, sentences)
	// Lead and trail with silence too: noise alone at the start is where a denoiser is weakest.
	speech := joinWithPauses(append(append([]PCM{{SampleRate: clips[0].SampleRate}}, clips...), PCM{}), pause)
	pauses := speechFrames(speech, false)
	if len(pauses) < 50 {
		t.Fatalf("only %d silent frames to measure", len(pauses))
	}
	// Each sentence is transcribed on its own (with half of each pause around it): pocketsphinx
	// is slow on long noisy audio it cannot split at silences.
	var spans [][2]int
	at, gap := int(pause*float64(speech.SampleRate)), int(pause*float64(speech.SampleRate))
	for _, c := range clips {
		spans = append(spans, [2]int{at - gap/2, at + len(c.Samples) + gap/2})
		at += len(c.Samples) + gap
	}
	refs := enginetest.HarvardSentences()[0:sentences]
	iso := NewRNNoise()
	defer iso.Close(context.Background())
	transcribe := func(p PCM) []string {
		var hyps []string
		for _, sp := range spans {
			tr, err := r.Transcribe(context.Background(), PCM{Samples: p.Samples[sp[0]:sp[1]], SampleRate: p.SampleRate}, TranscribeOptions{Language: "en"})
			if err != nil {
				t.Fatal(err)
			}
			hyps = append(hyps, tr.Text)
		}
		return hyps
	}
	for _, name := range []string{"white", "pink", "hum"} {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(name))))
			noisy := mixAtSNR(speech, testNoises[name](len(speech.Samples), speech.SampleRate, rng), 0)
			clean, err := iso.Isolate(context.Background(), noisy)
			if err != nil {
				t.Fatal(err)
			}
			if len(clean.Samples) != len(noisy.Samples) || clean.SampleRate != noisy.SampleRate {
				t.Fatalf("isolated %d samples at %d Hz from %d at %d", len(clean.Samples), clean.SampleRate, len(noisy.Samples), noisy.SampleRate)
			}
			drop := pauseLevel(noisy, pauses) - pauseLevel(clean, pauses)
			werNoisy := enginetest.WER(refs, transcribe(noisy))
			werClean := enginetest.WER(refs, transcribe(clean))
			t.Logf("%s at 0 dB SNR: noise floor in pauses -%.1f dB; WER noisy %.1f %%, isolated %.1f %%", name, drop, werNoisy, werClean)
			if drop < 15 {
				t.Errorf("the noise floor fell %.1f dB, want at least 15", drop)
			}
			if werClean > werNoisy {
				t.Errorf("WER rose from %.1f %% to %.1f %%", werNoisy, werClean)
			}
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
