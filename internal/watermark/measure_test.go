package watermark

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strconv"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/engine/enginetest"
)

var testKey = []byte("timbre-test-watermark-key-0123456789")

// clip is one piece of test audio at its own rate.
type clip struct {
	name    string
	samples []int16
	rate    int
}

// The attacked copy is what a listener might pass on: mp3 at 64 kbps, decoded and resampled to
// 16 kHz (by ffmpeg, not by this package's resampler), made quieter or louder (with clipping)
// and cut to a random 2-second piece.
const (
	attackRate = 16000
	cutSec     = 2.0
)

var volumes = []float64{0.3, 2}

// TestMeasureRobustnessAndFalsePositives is the measurement of issue 8 §3: ≥ 100 speech clips from
// the real engines, marked, then attacked; ≥ 100 unmarked clips (raw engine output, noise,
// music-like signals, speech marked with another key) through the same attacks. Run with -v to
// see the figures.
func TestMeasureRobustnessAndFalsePositives(t *testing.T) {
	if _, err := exec.LookPath(audio.FFmpeg); err != nil {
		t.Fatalf("ffmpeg is needed: %v", err)
	}
	wm, err := New(testKey)
	if err != nil {
		t.Fatal(err)
	}
	other, err := New([]byte("another-server-s-watermark-key-987"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 3))
	speech := synthesizeClips(t, 110)

	// Timbre resamples engine output to the requested format's rate before encoding: mark at the
	// rates it streams.
	embedRates := []int{16000, 22050, 24000, 44100}
	var (
		snrs      []float64
		bandSNRs  = make([][]float64, len(ratioBands)-1)
		posScores []float64
		missed    []string
		marked    []clip
	)
	for i, c := range speech {
		rate := embedRates[i%len(embedRates)]
		orig := c.samples
		if rate != c.rate {
			orig = audio.Resample(orig, c.rate, rate)
		}
		m := markInChunks(t, wm, orig, rate, rng)
		snrs = append(snrs, snrDB(orig, m))
		for b, v := range bandSNRsDB(orig, m, rate) {
			bandSNRs[b] = append(bandSNRs[b], v)
		}
		marked = append(marked, clip{name: fmt.Sprintf("%s@%d", c.name, rate), samples: m, rate: rate})
	}
	for i, attacked := range attack(t, marked) {
		for _, v := range volumes {
			cut := randomCut(rng, scaleVolume(attacked, v), attackRate, cutSec)
			r := wm.Detect(cut, attackRate)
			posScores = append(posScores, r.Score)
			if !r.Detected {
				missed = append(missed, fmt.Sprintf("%s ×%.1f (score %.2f)", marked[i].name, v, r.Score))
			}
		}
	}

	// Unmarked audio through the same attacks.
	type negative struct {
		kind string
		c    clip
		wm   *Watermark // non-nil: marked with this (other) key first
	}
	var negatives []negative
	for i, c := range speech {
		negatives = append(negatives, negative{kind: "raw engine speech", c: c})
		if i%10 == 0 {
			negatives = append(negatives, negative{kind: "speech marked with another key", c: c, wm: other})
		}
	}
	for i := range 20 {
		negatives = append(negatives, negative{kind: "white noise", c: whiteNoise(rng, 24000, 3+rng.Float64()*3, i)})
		negatives = append(negatives, negative{kind: "pink noise", c: pinkNoise(rng, 22050, 3+rng.Float64()*3, i)})
	}
	for i := range 30 {
		negatives = append(negatives, negative{kind: "music-like", c: musicLike(rng, []int{22050, 44100}[i%2], 3+rng.Float64()*4, i)})
	}
	falseByKind := map[string][2]int{} // kind → {false positives, clips}
	var negScores []float64
	var falsePos []string
	unmarked := make([]clip, len(negatives))
	for i, n := range negatives {
		unmarked[i] = n.c
		if n.wm != nil {
			unmarked[i].samples = markInChunks(t, n.wm, n.c.samples, n.c.rate, rng)
		}
	}
	for i, attacked := range attack(t, unmarked) {
		n := negatives[i]
		v := volumes[rng.IntN(len(volumes))]
		cut := randomCut(rng, scaleVolume(attacked, v), attackRate, cutSec)
		r := wm.Detect(cut, attackRate)
		negScores = append(negScores, r.Score)
		fk := falseByKind[n.kind]
		fk[1]++
		if r.Detected {
			fk[0]++
			falsePos = append(falsePos, fmt.Sprintf("%s %s (score %.2f)", n.kind, n.c.name, r.Score))
		}
		falseByKind[n.kind] = fk
	}

	detectedPct := 100 * float64(len(posScores)-len(missed)) / float64(len(posScores))
	falsePct := 100 * float64(len(falsePos)) / float64(len(negScores))
	slices.Sort(snrs)
	slices.Sort(posScores)
	slices.Sort(negScores)
	t.Logf("watermark level: speech/watermark power over %d clips: min %.1f dB, median %.1f dB, max %.1f dB",
		len(snrs), snrs[0], median(snrs), snrs[len(snrs)-1])
	for b := range bandSNRs {
		slices.Sort(bandSNRs[b])
		t.Logf("  in %4.0f–%4.0f Hz: min %.1f dB, median %.1f dB", ratioBands[b], ratioBands[b+1], bandSNRs[b][0], median(bandSNRs[b]))
	}
	t.Logf("detected after mp3 64 kbps (32 at 22.05 kHz) → 16 kHz → volume ×0.3/×2 → random 2 s cut: %d/%d = %.1f %% (scores: min %.2f, 1st pct %.2f, median %.2f; threshold %.1f)",
		len(posScores)-len(missed), len(posScores), detectedPct, posScores[0], percentile(posScores, 0.01), median(posScores), Threshold)
	t.Logf("false positives on unmarked audio through the same attacks: %d/%d = %.1f %% (scores: median %.2f, 99th pct %.2f, max %.2f)",
		len(falsePos), len(negScores), falsePct, median(negScores), percentile(negScores, 0.99), negScores[len(negScores)-1])
	kinds := make([]string, 0, len(falseByKind))
	for k := range falseByKind {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		t.Logf("  %-32s %d/%d", k, falseByKind[k][0], falseByKind[k][1])
	}
	for _, m := range missed {
		t.Logf("missed: %s", m)
	}
	for _, f := range falsePos {
		t.Logf("false positive: %s", f)
	}

	if len(speech) < 100 || len(negScores) < 100 {
		t.Fatalf("measured %d marked and %d unmarked clips, want ≥ 100 each", len(speech), len(negScores))
	}
	if detectedPct < 99 {
		t.Errorf("detected %.1f %% of attacked marked clips, want ≥ 99 %%", detectedPct)
	}
	if falsePct > 1 {
		t.Errorf("%.1f %% false positives, want ≤ 1 %%", falsePct)
	}
	if snrs[0] < 30 {
		t.Errorf("watermark only %.1f dB below the speech in the loudest case, want ≥ 30 dB", snrs[0])
	}
}

// synthesizeClips speaks Harvard sentences (one to three per clip, 2–8 s) with espeak-ng and flite
// voices at varied rates and pitches.
func synthesizeClips(t *testing.T, n int) []clip {
	t.Helper()
	sentences := enginetest.HarvardSentences()
	espeak, err := engine.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	flite, err := engine.NewFlite()
	if err != nil {
		t.Fatal(err)
	}
	type voice struct {
		synth engine.Synthesizer
		name  string
	}
	voices := []voice{
		{espeak, "en-us"}, {flite, "slt"}, {espeak, "en-us+f3"}, {flite, "rms"}, {espeak, "en-gb+m3"},
		{flite, "awb"}, {espeak, "en-us+f5"}, {flite, "kal16"}, {espeak, "en-gb-x-rp+m7"}, {espeak, "en-us+klatt"},
	}
	ctx := context.Background()
	var clips []clip
	next := 0
	for i := 0; len(clips) < n; i++ {
		v := voices[i%len(voices)]
		prosody := engine.Prosody{Rate: 0.85 + 0.1*float64(i%5), Pitch: 30 + 10*(i%5), PitchRange: 50}
		var samples []int16
		rate := 0
		for len(samples) < 2*max(rate, 1) || (len(samples) < 3*rate && i%3 == 0) {
			text := sentences[next%len(sentences)]
			next++
			res, err := v.synth.Synthesize(ctx, engine.Request{Text: text, Voice: v.name, Prosody: prosody})
			if err != nil {
				t.Fatalf("%s %s: %v", v.synth.Name(), v.name, err)
			}
			rate = res.Audio.SampleRate
			samples = append(samples, res.Audio.Samples...)
		}
		if len(samples) > 8*rate {
			samples = samples[:8*rate]
		}
		clips = append(clips, clip{name: fmt.Sprintf("%s/%s#%d", v.synth.Name(), v.name, i), samples: samples, rate: rate})
	}
	return clips
}

// markInChunks marks samples as a stream does: in chunks of random sizes.
func markInChunks(t *testing.T, wm *Watermark, samples []int16, rate int, rng *rand.Rand) []int16 {
	t.Helper()
	e, err := wm.NewEmbedder(rate)
	if err != nil {
		t.Fatal(err)
	}
	out := slices.Clone(samples)
	for rest := out; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(4096))
		e.Mark(rest[:n])
		rest = rest[n:]
	}
	return out
}

// attack puts every clip through mp3 at 64 kbps (ffmpeg's libmp3lame) and back, resampled to
// attackRate by ffmpeg's own resampler. Clips of one rate go through as one stream, half a
// second of silence apart (two ffmpeg runs per rate instead of two per clip); each clip's part
// of the result runs 0.1 s past its end, as the codec delays the audio by ~50 ms.
func attack(t testing.TB, clips []clip) [][]int16 {
	t.Helper()
	out := make([][]int16, len(clips))
	byRate := map[int][]int{}
	for i, c := range clips {
		byRate[c.rate] = append(byRate[c.rate], i)
	}
	for rate, idx := range byRate {
		gap := make([]int16, rate/2)
		stream := slices.Clone(gap)
		starts := make([]int, len(idx))
		for j, i := range idx {
			starts[j] = len(stream)
			stream = append(append(stream, clips[i].samples...), gap...)
		}
		decoded := mp3Roundtrip(t, stream, rate)
		for j, i := range idx {
			from := starts[j] * attackRate / rate
			to := min(len(decoded), (starts[j]+len(clips[i].samples))*attackRate/rate+attackRate/10)
			out[i] = decoded[from:to]
		}
	}
	return out
}

// mp3Roundtrip encodes with ffmpeg's libmp3lame at 64 kbps (at 22,050 Hz, 32 kbps: Timbre's
// mp3_22050_32, its leanest mp3) and decodes with ffmpeg at attackRate.
func mp3Roundtrip(t testing.TB, samples []int16, rate int) []int16 {
	t.Helper()
	bitrate := "64k"
	if rate == 22050 {
		bitrate = "32k"
	}
	mp3 := runFFmpeg(t, audio.PCMBytes(samples), "-f", "s16le", "-ar", strconv.Itoa(rate), "-ac", "1", "-i", "pipe:0",
		"-c:a", "libmp3lame", "-b:a", bitrate, "-f", "mp3", "pipe:1")
	pcm := runFFmpeg(t, mp3, "-f", "mp3", "-i", "pipe:0", "-ac", "1", "-ar", strconv.Itoa(attackRate), "-f", "s16le", "pipe:1")
	return audio.PCMSamples(pcm)
}

func runFFmpeg(t testing.TB, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(audio.FFmpeg, append([]string{"-hide_banner", "-loglevel", "error", "-nostdin"}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ffmpeg %v: %v: %s", args, err, stderr.String())
	}
	return out.Bytes()
}

func scaleVolume(samples []int16, gain float64) []int16 {
	out := make([]int16, len(samples))
	for i, s := range samples {
		out[i] = int16(max(-32768, min(32767, math.Round(float64(s)*gain))))
	}
	return out
}

func randomCut(rng *rand.Rand, samples []int16, rate int, sec float64) []int16 {
	n := int(sec * float64(rate))
	if len(samples) <= n {
		return samples
	}
	start := rng.IntN(len(samples) - n + 1)
	return samples[start : start+n]
}

// snrDB is the power of orig over the power of what marking added.
func snrDB(orig, marked []int16) float64 {
	var ps, pw float64
	for i, s := range orig {
		d := float64(marked[i]) - float64(s)
		ps += float64(s) * float64(s)
		pw += d * d
	}
	return 10 * math.Log10(ps/pw)
}

// ratioBands are the bands in which bandSNRsDB compares the speech with the mark.
var ratioBands = []float64{500, 1000, 2000, 4000, 5600, 6850, 7600}

// bandSNRsDB is snrDB within each of ratioBands (1,024-point spectra, no window).
func bandSNRsDB(orig, marked []int16, rate int) []float64 {
	const n = 1024
	ps, pw := make([]float64, len(ratioBands)-1), make([]float64, len(ratioBands)-1)
	xs, xw := make([]complex128, n), make([]complex128, n)
	for s := 0; s+n <= len(orig); s += n {
		for i := range n {
			xs[i] = complex(float64(orig[s+i]), 0)
			xw[i] = complex(float64(marked[s+i])-float64(orig[s+i]), 0)
		}
		fft(xs, false)
		fft(xw, false)
		for k := 1; k < n/2; k++ {
			f := float64(k) * float64(rate) / n
			for b := range ps {
				if f >= ratioBands[b] && f < ratioBands[b+1] {
					ps[b] += real(xs[k])*real(xs[k]) + imag(xs[k])*imag(xs[k])
					pw[b] += real(xw[k])*real(xw[k]) + imag(xw[k])*imag(xw[k])
				}
			}
		}
	}
	out := make([]float64, len(ps))
	for b := range ps {
		out[b] = 10 * math.Log10(ps[b]/pw[b])
	}
	return out
}

func whiteNoise(rng *rand.Rand, rate int, sec float64, i int) clip {
	s := make([]int16, int(sec*float64(rate)))
	amp := 1000 + 4000*rng.Float64()
	for j := range s {
		s[j] = int16(max(-32768, min(32767, rng.NormFloat64()*amp)))
	}
	return clip{name: fmt.Sprintf("white#%d", i), samples: s, rate: rate}
}

// pinkNoise is Paul Kellet's economical pink filter over white noise.
func pinkNoise(rng *rand.Rand, rate int, sec float64, i int) clip {
	s := make([]int16, int(sec*float64(rate)))
	amp := 300 + 1500*rng.Float64()
	var b0, b1, b2 float64
	for j := range s {
		w := rng.NormFloat64()
		b0 = 0.99765*b0 + w*0.0990460
		b1 = 0.96300*b1 + w*0.2965164
		b2 = 0.57000*b2 + w*1.0526913
		s[j] = int16(max(-32768, min(32767, (b0+b1+b2+w*0.1848)*amp)))
	}
	return clip{name: fmt.Sprintf("pink#%d", i), samples: s, rate: rate}
}

// musicLike is a chord progression of harmonic tones over a drum pattern (kick, snare, hi-hat) at
// a random tempo.
func musicLike(rng *rand.Rand, rate int, sec float64, i int) clip {
	n := int(sec * float64(rate))
	out := make([]float64, n)
	bpm := 70 + rng.Float64()*100
	beat := int(60 / bpm * float64(rate))
	root := 40 + rng.IntN(12) // MIDI note
	progression := [][]int{{0, 4, 7}, {5, 9, 12}, {7, 11, 14}, {-3, 0, 4}}
	if rng.IntN(2) == 0 {
		progression = [][]int{{0, 3, 7}, {5, 8, 12}, {7, 10, 14}, {3, 7, 10}}
	}
	harmonics := 3 + rng.IntN(6)
	for start, bar := 0, 0; start < n; start, bar = start+4*beat, bar+1 {
		chord := progression[bar%len(progression)]
		for _, step := range chord {
			f := 440 * math.Pow(2, float64(root+12+step-69)/12)
			for j := start; j < min(n, start+4*beat); j++ {
				tt := float64(j-start) / float64(rate)
				env := math.Exp(-tt * 1.5)
				for h := 1; h <= harmonics; h++ {
					if float64(h)*f < float64(rate)/2 {
						out[j] += 1500 * env / float64(h) * math.Sin(2*math.Pi*float64(h)*f*tt)
					}
				}
			}
		}
	}
	var hat float64
	for b := 0; b*beat < n; b++ {
		at := b * beat
		for j := at; j < min(n, at+beat); j++ {
			tt := float64(j-at) / float64(rate)
			if b%2 == 0 { // kick: a falling sine
				out[j] += 9000 * math.Exp(-tt*25) * math.Sin(2*math.Pi*(50+120*math.Exp(-tt*30))*tt)
			} else { // snare: a noise burst with a tone
				out[j] += math.Exp(-tt*30) * (3000*rng.NormFloat64() + 2000*math.Sin(2*math.Pi*190*tt))
			}
			if k := j - at; k < beat/2 || (k >= beat/2 && k < beat) { // hi-hat on every half beat
				w := rng.NormFloat64()
				hi := w - hat
				hat = w
				out[j] += 800 * math.Exp(-float64(k%(beat/2))/float64(rate)*60) * hi
			}
		}
	}
	s := make([]int16, n)
	for j, v := range out {
		s[j] = int16(max(-32768, min(32767, v)))
	}
	return clip{name: fmt.Sprintf("music#%d@%.0fbpm", i, bpm), samples: s, rate: rate}
}

func median(sorted []float64) float64 { return percentile(sorted, 0.5) }

func percentile(sorted []float64, p float64) float64 {
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}
