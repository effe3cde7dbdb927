package audio

import (
	"math"
	"sync"

	"timbre/internal/audio/vec"
)

// Resampler parameters: zero crossings of the sinc on each side of the centre (at the lower of
// the two rates), the Kaiser window's beta (≈ 80 dB stop band) and the pass band as a fraction of
// the lower Nyquist frequency. 16 crossings is plenty for speech and cheap enough to run in the
// request path.
const (
	rsZeroCrossings = 16
	rsKaiserBeta    = 8.0
	rsRolloff       = 0.95
	rsMaxPhases     = 4096 // above this many distinct phases the kernel is computed per sample
)

// resampler converts mono int16 audio from one sample rate to another with a Kaiser-windowed
// sinc filter. It is incremental: feed input in pieces with process and call flush at the end;
// the concatenated output equals resampling the whole input at once.
//
// Output sample n sits at input position n·step/phases (both reduced by the rates' gcd), so
// positions are exact integers plus one of `phases` fractions, and the kernel for each fraction
// is precomputed.
type resampler struct {
	*rsFilter
	scratch []float32 // kernel computed per sample when the filter has no table

	buf  []float32 // input samples; buf[0] is input index base
	base int64
	in   int64 // input samples received
	n    int64 // next output index
}

// rsFilter is the part of a resampler that depends only on the two rates. It is read-only once
// built and shared by every resampler for the same rate pair (see filterFor).
type rsFilter struct {
	step, phases int64     // input advance per output sample = step/phases input samples
	half         int       // taps on each side of the output position
	cutoff       float64   // normalised to the input rate's Nyquist frequency
	table        []float32 // phases × 2·half weights; nil when computed on the fly
}

// Built filters by rate pair. Building one costs up to a few milliseconds (441 phases × 34 taps
// for 16 kHz → 22.05 kHz), which would otherwise be paid by every stream. The set of rate pairs
// in use is small; rsMaxCached bounds it against callers resampling from arbitrary rates.
const rsMaxCached = 64

var rsCache struct {
	sync.Mutex
	m map[[2]int]*rsFilter
}

func filterFor(inRate, outRate int) *rsFilter {
	key := [2]int{inRate, outRate}
	rsCache.Lock()
	f := rsCache.m[key]
	rsCache.Unlock()
	if f != nil {
		return f
	}
	f = newFilter(inRate, outRate) // outside the lock; a concurrent duplicate build is harmless
	rsCache.Lock()
	defer rsCache.Unlock()
	if old := rsCache.m[key]; old != nil {
		return old
	}
	if rsCache.m == nil {
		rsCache.m = map[[2]int]*rsFilter{}
	}
	if len(rsCache.m) < rsMaxCached {
		rsCache.m[key] = f
	}
	return f
}

func newFilter(inRate, outRate int) *rsFilter {
	g := int64(gcd(inRate, outRate))
	r := &rsFilter{step: int64(inRate) / g, phases: int64(outRate) / g}
	r.cutoff = rsRolloff * math.Min(1, float64(outRate)/float64(inRate))
	// When downsampling the kernel is stretched so it still spans rsZeroCrossings zero crossings.
	r.half = int(math.Ceil(rsZeroCrossings / r.cutoff))
	if r.phases <= rsMaxPhases {
		table := make([]float32, int(r.phases)*2*r.half)
		for p := range r.phases {
			r.kernel(table[int(p)*2*r.half:int(p+1)*2*r.half], float64(p)/float64(r.phases))
		}
		r.table = table
	}
	return r
}

func newResampler(inRate, outRate int) *resampler {
	r := &resampler{rsFilter: filterFor(inRate, outRate)}
	if r.table == nil {
		r.scratch = make([]float32, 2*r.half)
	}
	// Inputs before index 0 are silence: keep half-1 leading zeros so the first outputs can be
	// computed without special cases.
	r.base = -int64(r.half - 1)
	r.buf = make([]float32, r.half-1)
	return r
}

// kernel fills w with the weights for inputs i-half+1 … i+half around position i+frac.
func (r *rsFilter) kernel(w []float32, frac float64) {
	var sum float64
	tmp := make([]float64, len(w))
	for k := range w {
		t := float64(k-r.half+1) - frac // distance from the output position, in input samples
		x := t / float64(r.half)
		v := r.cutoff * sinc(r.cutoff*t) * kaiser(x, rsKaiserBeta)
		tmp[k] = v
		sum += v
	}
	for k := range w {
		w[k] = float32(tmp[k] / sum) // unity gain at DC
	}
}

// process consumes input and appends every output sample that can be computed so far.
func (r *resampler) process(dst []int16, in []int16) []int16 {
	for _, s := range in {
		r.buf = append(r.buf, float32(s))
	}
	r.in += int64(len(in))
	return r.emit(dst, false)
}

// flush appends the remaining output, treating input past the end as silence. The output has
// ceil(inputLength · outRate / inRate) samples in total.
func (r *resampler) flush(dst []int16) []int16 {
	return r.emit(dst, true)
}

func (r *resampler) emit(dst []int16, final bool) []int16 {
	taps := 2 * r.half
	for {
		pos := r.n * r.step
		if pos >= r.in*r.phases { // output n lies past the end of the input
			break
		}
		i, p := pos/r.phases, pos%r.phases
		last := i + int64(r.half) // the newest input this output needs
		if last >= r.in && !final {
			break
		}
		for int64(len(r.buf))+r.base <= last { // pad the tail with silence when flushing
			r.buf = append(r.buf, 0)
		}
		var w []float32
		if r.table != nil {
			w = r.table[int(p)*taps : int(p+1)*taps]
		} else {
			w = r.scratch
			r.kernel(w, float64(p)/float64(r.phases))
		}
		dst = append(dst, clip16(vec.Dot(w, r.buf[i-int64(r.half)+1-r.base:][:taps])))
		r.n++
	}
	// Drop input that no future output can reach.
	keep := (r.n*r.step)/r.phases - int64(r.half) + 1
	if drop := keep - r.base; drop > 0 && drop <= int64(len(r.buf)) {
		r.buf = append(r.buf[:0], r.buf[drop:]...)
		r.base = keep
	}
	return dst
}

// Resample converts samples from inRate to outRate (pure Go, windowed sinc).
func Resample(samples []int16, inRate, outRate int) []int16 {
	if inRate == outRate {
		return append([]int16(nil), samples...)
	}
	r := newResampler(inRate, outRate)
	out := make([]int16, 0, int(int64(len(samples))*int64(outRate)/int64(inRate))+1)
	return r.flush(r.process(out, samples))
}

// clip16 rounds v half away from zero (as math.Round) and clamps it to 16 bits. Adding ±0.5
// in float64 is exact for any float32 here, and converting truncates towards zero; math.Round
// is no intrinsic on amd64's baseline and took a quarter of the resampler's time.
func clip16(v float32) int16 {
	x := float64(v)
	switch {
	case x >= 32767:
		return 32767
	case x <= -32768:
		return -32768
	case x >= 0:
		return int16(int32(x + 0.5))
	}
	return int16(int32(x - 0.5))
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// kaiser is the Kaiser window at x ∈ [-1, 1].
func kaiser(x, beta float64) float64 {
	if x <= -1 || x >= 1 {
		return 0
	}
	return besselI0(beta*math.Sqrt(1-x*x)) / besselI0(beta)
}

// besselI0 is the zeroth-order modified Bessel function of the first kind (power series).
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 50; k++ {
		term *= (x / (2 * float64(k))) * (x / (2 * float64(k)))
		sum += term
		if term < sum*1e-12 {
			break
		}
	}
	return sum
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Resampler is the incremental form of Resample, for audio that arrives in pieces: the
// concatenated output of Process calls and the final Flush equals Resample of the whole input.
type Resampler struct{ r *resampler }

// NewResampler converts from inRate to outRate.
func NewResampler(inRate, outRate int) *Resampler {
	return &Resampler{r: newResampler(inRate, outRate)}
}

// Process consumes in and appends to dst every output sample that can be computed so far.
func (r *Resampler) Process(dst, in []int16) []int16 { return r.r.process(dst, in) }

// Flush appends the rest of the output (input past the end is silence).
func (r *Resampler) Flush(dst []int16) []int16 { return r.r.flush(dst) }
