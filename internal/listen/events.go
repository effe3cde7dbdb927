package listen

import (
	"math"
	"slices"
)

// Audio events are found in 1 s windows every 0.5 s from three frame measures (10 ms frames):
//   - loudness: a frame is active when it is within eventRangeDB of the recording's loudest
//     frames and above eventFloorDB (digital or near silence is never an event);
//   - spectral flatness (geometric over arithmetic mean of the power, 100 Hz–7 kHz): near 1
//     for noise, near 0 for tones and voiced speech;
//   - held partials: a frame is steady when at least steadyPeaks of its five strongest
//     spectral peaks above 400 Hz sat within one bin (31 Hz) in each of the previous
//     steadyFrames frames: held notes and chords. Speech glides in pitch and changes sounds
//     several times a second, so hardly any of its frames are (≤ 6 % of a window of flite's
//     voices, against 29–51 % for the synthetic music of the tests).
//
// Music is a window almost wholly active with a fifth of its frames steady; noise a window
// almost wholly active, flat and never steady; laughter-like bursts are at least laughBursts
// short bursts (60–300 ms) in a row at a regular beat of 3–8 a second, each with the spectrum
// of the one before (a repeated "ha"), which syllables of speech rarely are. Neighbouring
// windows of one kind join into one event.
const (
	eventWin      = 100 // frames (1 s)
	eventHop      = 50
	eventFloorDB  = -60
	eventRangeDB  = 40
	steadyFrames  = 30 // 300 ms
	steadyPeaks   = 2
	musicActive   = 0.9
	musicSteady   = 0.2
	noiseFlatness = 0.3
	noiseSteady   = 0.1
	laughBursts   = 4
)

// Event kinds, as transcripts show them: "(music)", "(noise)", "(laughter)".
const (
	Music    = "music"
	Noise    = "noise"
	Laughter = "laughter"
)

// Event is a stretch of non-speech sound.
type Event struct {
	Segment
	Kind string
}

// frameMeasures are the per-frame measures above.
type frameMeasures struct {
	db, flatness []float64
	active       []bool
	steady       []bool
	logMel       [][]float64 // for comparing bursts
}

func measure(samples []int16) *frameMeasures {
	spec := spectrogram(samples)
	m := &frameMeasures{db: frameDB(spec), flatness: make([]float64, len(spec)), steady: make([]bool, len(spec))}
	if len(spec) == 0 {
		return m
	}
	loud := sortedAt(m.db, 0.98)
	m.active = make([]bool, len(spec))
	for f, d := range m.db {
		m.active[f] = d > eventFloorDB && d > loud-eventRangeDB
	}
	lo, hi := 100*fftLen/Rate, 7000*fftLen/Rate
	peaks := make([][]int, len(spec))
	for f, p := range spec {
		var logSum, sum float64
		for _, v := range p[lo:hi] {
			logSum += math.Log(v + 1e-20)
			sum += v
		}
		n := float64(hi - lo)
		m.flatness[f] = math.Exp(logSum/n) / (sum/n + 1e-20)
		peaks[f] = strongPeaks(p, 400*fftLen/Rate, hi, 5)
	}
	for f := steadyFrames; f < len(spec); f++ {
		if !m.active[f] {
			continue
		}
		held := 0
	peak:
		for _, b := range peaks[f] {
			for g := f - steadyFrames; g < f; g++ {
				if !slices.ContainsFunc(peaks[g], func(c int) bool { return c >= b-1 && c <= b+1 }) {
					continue peak
				}
			}
			held++
		}
		m.steady[f] = held >= steadyPeaks
	}
	m.logMel = logMelFrames(spec)
	return m
}

// strongPeaks are the bins of the k highest local maxima of p in [lo, hi) that stand 10 dB
// over the frame's median power.
func strongPeaks(p []float64, lo, hi, k int) []int {
	floor := sortedAt(p[lo:hi], 0.5) * 10
	var out []int
	for b := lo + 1; b < hi-1; b++ {
		if p[b] > p[b-1] && p[b] >= p[b+1] && p[b] > floor {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(a, b int) int {
		switch {
		case p[a] > p[b]:
			return -1
		case p[a] < p[b]:
			return 1
		}
		return 0
	})
	return out[:min(k, len(out))]
}

// sortedAt is the q-quantile of xs.
func sortedAt(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// AudioEvents finds music, noise and laughter-like bursts in samples (16 kHz mono); see the
// constants above.
func AudioEvents(samples []int16) []Event {
	m := measure(samples)
	n := len(m.db)
	var out []Event
	add := func(kind string, from, to int) {
		e := Event{Segment{float64(from) * hopSec, float64(to)*hopSec + float64(winLen-hopLen)/Rate}, kind}
		if k := len(out); k > 0 && out[k-1].Kind == kind && e.Start <= out[k-1].End {
			out[k-1].End = max(out[k-1].End, e.End)
			return
		}
		out = append(out, e)
	}
	for from := 0; from < n; from += eventHop {
		to := min(from+eventWin, n)
		if to-from < eventWin/2 {
			break
		}
		if kind := m.classify(from, to); kind != "" {
			add(kind, from, to)
		}
	}
	for _, b := range m.laughs() {
		add(Laughter, b[0], b[1])
	}
	slices.SortStableFunc(out, func(a, b Event) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	return out
}

// classify says whether frames [from, to) are music, noise or neither ("").
func (m *frameMeasures) classify(from, to int) string {
	var active, steady int
	flat := make([]float64, 0, to-from)
	for f := from; f < to; f++ {
		if m.active[f] {
			active++
			flat = append(flat, m.flatness[f])
		}
		if m.steady[f] {
			steady++
		}
	}
	n := float64(to - from)
	if float64(active) < musicActive*n {
		return ""
	}
	switch {
	case float64(steady) >= musicSteady*n:
		return Music
	case float64(steady) <= noiseSteady*n && sortedAt(flat, 0.5) >= noiseFlatness:
		return Noise
	}
	return ""
}

// laughs finds runs of laughter-like bursts: [from, to) frame ranges.
func (m *frameMeasures) laughs() [][2]int {
	// Bursts: runs of active frames 6–30 frames long.
	var bursts [][2]int
	start := -1
	for f := 0; f <= len(m.active); f++ {
		on := f < len(m.active) && m.active[f]
		switch {
		case on && start < 0:
			start = f
		case !on && start >= 0:
			if l := f - start; l >= 6 && l <= 30 {
				bursts = append(bursts, [2]int{start, f})
			} else {
				bursts = append(bursts, [2]int{-1, -1}) // breaks a run
			}
			start = -1
		}
	}
	var out [][2]int
	run := 0
	for i := 1; i <= len(bursts); i++ {
		ok := i < len(bursts) && bursts[i][0] >= 0 && bursts[i-1][0] >= 0 && m.followsBeat(bursts, i)
		if ok {
			run++
			continue
		}
		if run+1 >= laughBursts {
			out = append(out, [2]int{bursts[i-1-run][0], bursts[i-1][1]})
		}
		run = 0
	}
	return out
}

// followsBeat says whether burst i starts 125–330 ms after burst i-1, at the beat of the one
// before it (within 25 %) where there is one, and sounds like it.
func (m *frameMeasures) followsBeat(bursts [][2]int, i int) bool {
	ioi := bursts[i][0] - bursts[i-1][0]
	if ioi < 12 || ioi > 33 {
		return false
	}
	if i >= 2 && bursts[i-2][0] >= 0 {
		prev := bursts[i-1][0] - bursts[i-2][0]
		if math.Abs(float64(ioi-prev)) > 0.25*float64(prev) {
			return false
		}
	}
	return similarity(m.meanLogMel(bursts[i-1]), m.meanLogMel(bursts[i])) >= 0.9
}

func (m *frameMeasures) meanLogMel(b [2]int) []float64 {
	v := make([]float64, melBands)
	for f := b[0]; f < b[1]; f++ {
		for j, x := range m.logMel[f] {
			v[j] += x / float64(b[1]-b[0])
		}
	}
	return v
}

// similarity is the correlation of two log-mel spectra.
func similarity(a, b []float64) float64 {
	var ma, mb float64
	for i := range a {
		ma += a[i] / float64(len(a))
		mb += b[i] / float64(len(b))
	}
	var ab, aa, bb float64
	for i := range a {
		ab += (a[i] - ma) * (b[i] - mb)
		aa += (a[i] - ma) * (a[i] - ma)
		bb += (b[i] - mb) * (b[i] - mb)
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}
