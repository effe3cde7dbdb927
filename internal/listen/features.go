package listen

import (
	"math"
	"math/bits"
	"sync"
)

// Short-time analysis: 25 ms Hamming windows every 10 ms, a 512-point FFT (31.25 Hz bins).
const (
	winLen   = 400
	hopLen   = 160
	fftLen   = 512
	hopSec   = float64(hopLen) / Rate
	melBands = 40
	cepstra  = 20 // c0…c19; c0 (loudness) is left out of speaker embeddings
)

// The short-time analysis, exported for the voiceprint (speaker description) package: frame f of
// Spectrogram covers samples [f·HopSamples, f·HopSamples+WinSamples); bin k is k·Rate/FFTSize Hz.
const (
	WinSamples = winLen
	HopSamples = hopLen
	FFTSize    = fftLen
)

// Spectrogram is the power spectrum of every 25 ms frame of samples (16 kHz), 10 ms apart.
func Spectrogram(samples []int16) [][]float64 { return spectrogram(samples) }

// MFCC is each frame's mel-frequency cepstral coefficients c0…c19.
func MFCC(spec [][]float64) [][]float64 { return mfcc(spec) }

// FrameDB is each frame's energy in dB relative to full scale.
func FrameDB(spec [][]float64) []float64 { return frameDB(spec) }

// spectrogram is the power spectrum of every frame: frames × (fftLen/2+1).
func spectrogram(samples []int16) [][]float64 {
	if len(samples) < winLen {
		return nil
	}
	n := 1 + (len(samples)-winLen)/hopLen
	out := make([][]float64, n)
	buf := make([]complex128, fftLen)
	win := hamming()
	for f := range n {
		clear(buf)
		seg := samples[f*hopLen : f*hopLen+winLen]
		for i, s := range seg {
			buf[i] = complex(float64(s)/32768*win[i], 0)
		}
		fft(buf)
		p := make([]float64, fftLen/2+1)
		for k := range p {
			re, im := real(buf[k]), imag(buf[k])
			p[k] = re*re + im*im
		}
		out[f] = p
	}
	return out
}

var hamming = sync.OnceValue(func() []float64 {
	w := make([]float64, winLen)
	for i := range w {
		w[i] = 0.54 - 0.46*math.Cos(2*math.Pi*float64(i)/float64(winLen-1))
	}
	return w
})

// melFilter is one triangular filter: weights w over bins [lo, lo+len(w)).
type melFilter struct {
	lo int
	w  []float64
}

// melFilters are triangular filters evenly spaced on the mel scale from 60 Hz to 7600 Hz.
var melFilters = sync.OnceValue(func() []melFilter {
	mel := func(f float64) float64 { return 2595 * math.Log10(1+f/700) }
	hz := func(m float64) float64 { return 700 * (math.Pow(10, m/2595) - 1) }
	lo, hi := mel(60), mel(7600)
	edges := make([]float64, melBands+2)
	for i := range edges {
		edges[i] = hz(lo+(hi-lo)*float64(i)/float64(melBands+1)) * fftLen / Rate // in bins
	}
	out := make([]melFilter, melBands)
	for b := range out {
		f := melFilter{lo: -1}
		for k := int(edges[b]); k <= int(edges[b+2])+1 && k <= fftLen/2; k++ {
			x, w := float64(k), 0.0
			switch {
			case x > edges[b] && x <= edges[b+1]:
				w = (x - edges[b]) / (edges[b+1] - edges[b])
			case x > edges[b+1] && x < edges[b+2]:
				w = (edges[b+2] - x) / (edges[b+2] - edges[b+1])
			}
			if w > 0 && f.lo < 0 {
				f.lo = k
			}
			if f.lo >= 0 {
				f.w = append(f.w, w)
			}
		}
		out[b] = f
	}
	return out
})

// logMelFrames is each frame's log energy in each mel band.
func logMelFrames(spec [][]float64) [][]float64 {
	filters := melFilters()
	out := make([][]float64, len(spec))
	for f, p := range spec {
		v := make([]float64, melBands)
		for b, fl := range filters {
			var e float64
			for i, w := range fl.w {
				e += w * p[fl.lo+i]
			}
			v[b] = math.Log(e + 1e-10)
		}
		out[f] = v
	}
	return out
}

// dctTable holds cos(π i (b + ½) / melBands) for the cepstra.
var dctTable = sync.OnceValue(func() [][]float64 {
	t := make([][]float64, cepstra)
	for i := range t {
		t[i] = make([]float64, melBands)
		for b := range t[i] {
			t[i][b] = math.Cos(math.Pi * float64(i) * (float64(b) + 0.5) / melBands)
		}
	}
	return t
})

// mfcc gives each frame's mel-frequency cepstral coefficients c0…c19 (DCT-II of the log mel
// energies).
func mfcc(spec [][]float64) [][]float64 {
	dct := dctTable()
	logMel := logMelFrames(spec)
	out := make([][]float64, len(spec))
	for f, lm := range logMel {
		c := make([]float64, cepstra)
		for i, row := range dct {
			var s float64
			for b, v := range lm {
				s += v * row[b]
			}
			c[i] = s
		}
		out[f] = c
	}
	return out
}

// frameDB is each frame's energy in dB relative to full scale.
func frameDB(spec [][]float64) []float64 {
	out := make([]float64, len(spec))
	for f, p := range spec {
		var e float64
		for _, v := range p {
			e += v
		}
		out[f] = 10 * math.Log10(e/fftLen+1e-12)
	}
	return out
}

// fft transforms x in place (iterative radix-2; len(x) a power of two).
func fft(x []complex128) {
	n := len(x)
	shift := 64 - bits.Len(uint(n-1))
	for i := range x {
		if j := int(bits.Reverse64(uint64(i)) >> shift); i < j {
			x[i], x[j] = x[j], x[i]
		}
	}
	tw := twiddles(n)
	for size := 2; size <= n; size <<= 1 {
		half, step := size/2, n/size
		for start := 0; start < n; start += size {
			for k := range half {
				a, b := x[start+k], x[start+k+half]*tw[k*step]
				x[start+k], x[start+k+half] = a+b, a-b
			}
		}
	}
}

var twiddleTables sync.Map // size → []complex128

func twiddles(n int) []complex128 {
	if t, ok := twiddleTables.Load(n); ok {
		return t.([]complex128)
	}
	t := make([]complex128, n/2)
	for k := range t {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		t[k] = complex(c, s)
	}
	twiddleTables.Store(n, t)
	return t
}
