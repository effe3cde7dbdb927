// Package watermark marks the audio Timbre produces with an inaudible, keyed signal and finds it
// again in audio that has since been compressed, resampled, made louder or quieter, or cut.
//
// # Two bands: above the recogniser where the audio allows it
//
// Audio delivered at 16 kHz or more (every format but the 8 kHz telephone ones) carries the
// wide band's carrier, in 7.0–7.45 kHz: above the last mel filter of a 16 kHz speech recogniser
// (pocketsphinx's en-us model ends at 6,800 Hz, its -upperf), so that recognition does not hear
// the mark at all. Round-tripped through pocketsphinx (BenchmarkRecognitionCost, 40 Harvard
// sentences × four flite voices, eight keys) it costs 0.23 points of word error rate (−0.16 to +0.72 by key) where the
// speech band's mark cost 1.26; ±1 LSB of random noise, the floor of any inaudible change, costs
// 0.17. Audio delivered below 16 kHz, which cannot hold 7 kHz, carries the speech band's carrier,
// described below, at the level marking at its own rate gives. The detector looks for both, so
// audio marked before the wide band existed is still found. The wide band is a separate keyed
// carrier with the same design: its detector runs at 25.6 kHz (a period is 2^15 samples), its
// spectrum is flat (within 450 Hz tilting buys nothing) and its strength 3 dB higher (see
// wideStrength). What the speech band's description says of the envelope, the detection and
// the attacks holds for both.
//
// # The speech band: direct-sequence spread spectrum with a periodic, keyed carrier
//
// The mark is additive spread spectrum in the time domain (Cox et al. 1997; Kirovski & Malvar,
// "Spread-spectrum watermarking of audio signals", IEEE Trans. Signal Processing 51(4), 2003):
//
//   - The carrier is keyed noise: a periodic signal whose period is 1.28 s, whose spectrum lies
//     between 2.8 kHz and 6.1 kHz and whose phases are drawn from a generator seeded by
//     HMAC-SHA256 of the server's key. Only holders of the key can make or find it. The band is
//     where mp3 at 64 kbps, resampling to 16 kHz and small speakers all keep energy, and where the
//     mark costs speech recognition least: round-tripped through pocketsphinx (40 Harvard
//     sentences × the four flite voices, BenchmarkRecognitionCost), a
//     mark in 0.7–1.4 kHz or 1.4–2.8 kHz cost 0.3–0.4 points of word error rate and added almost
//     nothing to detection (speech is strong there, so the whitened mark is weak), while the same
//     level in 2.8–5.6 kHz cost 0.0–0.2 points and gave all of the detection score. The first
//     carrier spanned 0.7–5.6 kHz and cost 4.2 points. Within the band the carrier rises by
//     9 dB per octave (amplitude ∝ f^1.5): speech is weakest at the band's top, so there the
//     whitened mark counts most for detection, while the recogniser's mel filters are densest
//     at its bottom. Against the first shape, which fell by 4.5 dB per octave, the same mark
//     power scored 38 % higher after mp3 at 64 kbps (lowest score 12.3 against 8.9), so the mark
//     is now 3.6 dB weaker (strength 0.0031, was 0.0047) with the same margin (lowest score
//     8.5–9.0 with three keys). Over four keys it cost the recogniser 0.94 points where the old
//     one cost 1.38 (the 40 sentences × four flite voices); over eight keys the same mark costs
//     1.26, nearly regardless of its level (BenchmarkRecognitionCost). The phases are unchanged,
//     so audio marked with the old shape is still found (lowest score 9.4 after mp3 at 64 kbps).
//   - Embedding adds the carrier scaled by the speech's own envelope (the peak |x| of the
//     blocks of 32 samples before, released over 5 ms), so the mark sits ~44 dB below the
//     speech (≥ 42.5 dB measured on every clip; 39 dB at 8 kHz, see narrowGain), is silent where the speech is silent (digital
//     silence stays silent) and rides under the speech in time. A 40 ms release left the mark
//     in the gaps after each sound, where the recogniser heard it: 5 ms halved that cost (2 ms lowered the lowest detection
//     score from 8.7 to 7.5). The
//     envelope is causal: the embedder returns every chunk at once, with no look-ahead and no
//     added latency, and costs a few operations per sample.
//   - The carrier is defined in continuous time (1.28 s is a whole number of samples at every
//     rate from 8 kHz to 48 kHz), so audio at any rate carries the same mark, and the detector
//     resamples whatever it is given to one reference rate per band (12.8 kHz, where a period
//     is 2^14 samples).
//   - Detection is blind, and self-synchronising through the period: the received audio is
//     whitened in short frames (each STFT bin divided by its local spectral level: the
//     pre-whitening that makes correlation detection near-optimal against a coloured host,
//     Kirovski & Malvar §III), weighted where the mark is expected to stand out (frames whose
//     energy lies below the band, and the band's upper bins: see binWeight and frameWeightExp),
//     folded modulo one period, and circularly correlated with the carrier
//     at every lag at once by FFT (at half-sample resolution, as codec delays are fractional). A
//     2-second cut holds more than one period, so any cut, at any offset, is found. The score is
//     the correlation peak in standard deviations of all lags; unmarked audio gives the maximum
//     of ~16,000 near-Gaussian values (≈ 4–5), marked speech much more.
//   - Volume changes are a scale factor that the normalised score ignores; mp3 keeps the band's
//     waveform up to its quantisation noise, which only adds uncorrelated noise; clipping distorts
//     the peaks but leaves most of the carrier.
//
// Echo hiding and STFT-domain patchwork were the alternatives considered. Echo hiding needs
// echoes at ~1 ms delays that mp3 at 64 kbps smears; patchwork changes magnitudes of whole
// frames, which needs frame look-ahead (latency on the first chunk) and, at the same power,
// gives a weaker statistic than coherent correlation.
//
// The mark carries no payload (zero-bit watermark): it answers "did a Timbre server with this
// key make this audio?". It is not meant to resist an informed attacker who averages many
// periods to estimate and subtract the carrier.
package watermark

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"math"
	"math/rand/v2"
	"sync"

	"timbre/internal/audio"
)

// band is one carrier: its frequencies, the level it is embedded at, and the rate the detector
// looks for it at (where one period, periodSec, is a power-of-two number of samples).
type band struct {
	label      string  // the HMAC label its phases are derived from
	refRate    int     // Hz: the detector's rate
	periodLen  int     // samples of one period at refRate
	lo, hi     float64 // Hz: the band's edges
	edge       float64 // Hz: raised-cosine taper outside each edge
	tiltExp    float64 // the carrier's amplitude goes as f^-tiltExp
	weightExp  float64 // the detector's bin weight goes as f^weightExp (see binWeight)
	frameLen   int     // the whitening frame at refRate (40 ms)
	strength   float32 // the mark's amplitude relative to the speech's envelope
	minRate    int     // the lowest rate that carries the band; below it the other band is used
	narrowRate int     // below this rate the carrier is narrowGain louder (see narrowGain)
}

// speechBand is the first carrier, 2.8–6.1 kHz (described in the package comment). It marks
// audio delivered below 16 kHz, and audio made before wideBand existed is still found by it.
var speechBand = band{
	label: "timbre watermark carrier v1", refRate: 12800, periodLen: 16384,
	lo: 2800, hi: 6100, edge: 150, tiltExp: -1.5, weightExp: weightExp, frameLen: 512,
	strength: speechStrength, minRate: minRate, narrowRate: 9000,
}

// wideBand is the carrier for audio delivered at 16 kHz and above: 7.0–7.45 kHz, above the last
// mel filter of a 16 kHz speech recogniser (6,800 Hz for pocketsphinx's en-us model), so that the
// recogniser does not hear it at all, and below 16 kHz audio's Nyquist frequency with room for a
// resampler's roll-off (this package's keeps 95 % of it: 7.6 kHz).
var wideBand = band{
	label: "timbre watermark carrier v2", refRate: 25600, periodLen: 32768,
	lo: 7000, hi: 7450, edge: 120, tiltExp: 0, weightExp: 0, frameLen: 1024,
	strength: wideStrength, minRate: 16000,
}

const (
	periodSec = 1.28 // the period in seconds: a whole number of samples at 8k–48k
	minRate   = 8000
	maxRate   = 48000
	minKeyLen = 16
)

// Watermark makes embedders and detects the marks of one key. It is safe for concurrent use.
type Watermark struct {
	speech, wide *carrier
}

// carrier is one band's keyed signal.
type carrier struct {
	band
	spectrum []complex128 // the carrier's spectrum at refRate (periodLen bins)
	ref      []float64    // the carrier at refRate, unit RMS
	weight   []float64    // the detector's weight of each bin (binWeight)

	mu     sync.Mutex
	byRate map[[2]int][]float32 // one period for each marking and delivered rate asked for (see at)
}

// New derives the carriers from key (a server secret of at least 16 bytes).
func New(key []byte) (*Watermark, error) {
	if len(key) < minKeyLen {
		return nil, errors.New("watermark: key shorter than 16 bytes")
	}
	return &Watermark{speech: newCarrier(key, speechBand), wide: newCarrier(key, wideBand)}, nil
}

func newCarrier(key []byte, b band) *carrier {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(b.label))
	rng := rand.New(rand.NewChaCha8([32]byte(mac.Sum(nil))))

	n := b.periodLen
	spec := make([]complex128, n)
	binHz := float64(b.refRate) / float64(n)
	for k := 1; k < n/2; k++ {
		g := b.gain(float64(k)*binHz) * math.Pow(float64(k)*binHz/1000, -b.tiltExp)
		if g == 0 {
			continue
		}
		s, c := math.Sincos(2 * math.Pi * rng.Float64())
		spec[k] = complex(g*c, g*s)
		spec[n-k] = complex(g*c, -g*s) // conjugate symmetry: a real signal
	}
	x := append([]complex128(nil), spec...)
	fft(x, true)
	ref := make([]float64, n)
	var power float64
	for i, v := range x {
		ref[i] = real(v)
		power += real(v) * real(v)
	}
	scale := 1 / math.Sqrt(power/float64(n))
	for i := range ref {
		ref[i] *= scale
	}
	for k := range spec {
		spec[k] *= complex(scale, 0) // keep spectrum = FFT(ref)
	}
	return &carrier{band: b, spectrum: spec, ref: ref, weight: binWeight(b), byRate: map[[2]int][]float32{}}
}

// gain is the band's window at frequency f: one inside, raised-cosine edges.
func (b band) gain(f float64) float64 {
	switch {
	case f <= b.lo-b.edge || f >= b.hi+b.edge:
		return 0
	case f < b.lo:
		return 0.5 - 0.5*math.Cos(math.Pi*(f-b.lo+b.edge)/b.edge)
	case f > b.hi:
		return 0.5 + 0.5*math.Cos(math.Pi*(f-b.hi)/b.edge)
	}
	return 1
}

// at returns one period of the carrier for audio marked at rate and delivered at outRate (built
// once per pair, then shared). Audio delivered at a lower rate than it is marked at carries what
// the lower rate keeps of the carrier, at the level marking at that rate would give it.
func (c *carrier) at(rate, outRate int) []float32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	limit := min(rate, outRate)
	key := [2]int{rate, limit}
	if p, ok := c.byRate[key]; ok {
		return p
	}
	p := resamplePeriod(c.ref, c.refRate, limit)
	if limit < rate {
		p64 := make([]float64, len(p))
		for i, v := range p {
			p64[i] = float64(v)
		}
		p = resamplePeriod(p64, limit, rate)
	}
	if limit < c.narrowRate {
		for i := range p {
			p[i] *= narrowGain
		}
	}
	c.byRate[key] = p
	return p
}

// Below narrowRate (telephone audio at 8 kHz) only the speech band's bottom fits, where speech
// is strong and the whitened mark weak: there the carrier is narrowGain louder, the level of the
// first, falling carrier, which scored 13.3 on TestDetectsAtEveryRate's 8 kHz clip where the
// rising one at the common level scored 8.7.
const narrowGain = 0.0047 / speechStrength

// resamplePeriod converts one period of a carrier at refRate to rate. Three periods go through
// the resampler and the middle one is kept, so the result is exactly periodic. Resampling in
// 16-bit is exact enough: the rounding noise lies ~80 dB below the carrier.
func resamplePeriod(ref []float64, refRate, rate int) []float32 {
	n := int(math.Round(periodSec * float64(rate)))
	const fixed = 3000.0 // the carrier's RMS in 16-bit units; peaks stay far from clipping
	tiled := make([]int16, 3*len(ref))
	for i := range tiled {
		tiled[i] = int16(math.Round(ref[i%len(ref)] * fixed))
	}
	var mid []int16
	if rate == refRate {
		mid = tiled[len(ref) : 2*len(ref)]
	} else {
		mid = audio.Resample(tiled, refRate, rate)[n : 2*n]
	}
	out := make([]float32, n)
	var power float64
	for _, v := range mid {
		power += float64(v) * float64(v)
	}
	scale := 1 / math.Sqrt(power/float64(n)) // unit RMS even where a low rate cut part of the band
	for i, v := range mid {
		out[i] = float32(float64(v) * scale)
	}
	return out
}
