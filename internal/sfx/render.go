package sfx

import (
	"math"
)

// SampleRate is the rate the engine renders at.
const SampleRate = 44100

// Duration limits of a request (seconds), as the API documents them.
const (
	MinDuration = 0.5
	MaxDuration = 30.0
)

// DefaultInfluence is prompt_influence when the request leaves it out (the API's default).
const DefaultInfluence = 0.3

// Options is one render.
type Options struct {
	Text      string
	Duration  float64 // seconds; 0 = the engine picks from the scene
	Loop      bool
	Influence float64 // 0 … 1: how closely the parameters follow the prompt (1 = no variation)
	Seed      uint64
}

// Render is the engine's output.
type Render struct {
	Samples    []int16
	SampleRate int
	Recipes    []string // the recipes used, in time-line order
	Fallback   bool     // no word named a source: the scene was guessed
}

// Seconds is the rendered duration.
func (r *Render) Seconds() float64 { return float64(len(r.Samples)) / float64(r.SampleRate) }

// AutoDuration is the duration the engine picks for a scene: its groups one after another, each
// as long as its longest source's natural length, within the API's limits.
func AutoDuration(sc *Scene) float64 {
	total := 0.0
	for _, g := range groupNaturals(sc) {
		total += g
	}
	return min(MaxDuration, max(MinDuration, total))
}

func groupNaturals(sc *Scene) []float64 {
	out := make([]float64, sc.Groups)
	for _, s := range sc.Sources {
		rc := recipes[s.Recipe]
		nat := rc.natural * s.Char.Length
		if rc.bed && sc.Groups > 1 {
			nat = min(nat, 3) // a bed under later events only needs to set the scene
		}
		if !rc.bed {
			nat /= math.Sqrt(s.Char.Speed)
		}
		out[s.Group] = max(out[s.Group], nat)
	}
	return out
}

// vary jitters a source's character by the seed: the less prompt influence, the wider.
func vary(r *rng, c Char, influence float64) Char {
	spread := 0.04 + 0.5*(1-clamp01(influence))
	c.Pitch *= math.Exp(spread * 0.5 * r.norm())
	c.Speed *= math.Exp(spread * 0.5 * r.norm())
	c.Weight = clamp01(c.Weight + spread*0.4*r.norm())
	c.Length *= math.Exp(spread * 0.3 * r.norm())
	c.Distance = clamp01(c.Distance + spread*0.2*math.Abs(r.norm()))
	return c
}

// Generate parses o.Text and renders it.
func Generate(o Options) *Render {
	return RenderScene(Parse(o.Text), o)
}

// RenderScene renders a parsed scene: each source in its slot of the time line (beds run on to
// the end), character applied (distance dulls and sends to the reverb), mixed through a
// generated convolution reverb, peak-normalized; exactly o.Duration seconds long, or seamless
// when looped.
func RenderScene(sc *Scene, o Options) *Render {
	sr := SampleRate
	r := newRNG(o.Seed)
	dur := o.Duration
	if dur <= 0 {
		dur = AutoDuration(sc)
		if o.Loop {
			dur = max(dur, 4)
		}
	}
	n := int(math.Round(dur * float64(sr)))
	xfade, search := 0, 0
	if o.Loop {
		xfade, search = min(int(0.5*float64(sr)), n/4), int(0.05*float64(sr))
	}
	total := n + xfade + search

	// The time line: group slots in proportion to their natural lengths.
	nat := groupNaturals(sc)
	sum := 0.0
	for _, g := range nat {
		sum += g
	}
	starts := make([]int, sc.Groups+1)
	acc := 0.0
	for g := range nat {
		starts[g] = int(float64(n) * acc / sum)
		acc += nat[g]
	}
	starts[sc.Groups] = total

	dry := make([]float64, total)
	send := make([]float64, total)
	for _, s := range sc.Sources {
		rc := recipes[s.Recipe]
		c := vary(r, s.Char, o.Influence)
		l := &layer{r: r.fork(), sr: sr, c: c}
		start := starts[s.Group]
		end := starts[s.Group+1]
		if rc.bed || s.Group == sc.Groups-1 {
			end = total
		}
		length := end - start
		if length <= 0 {
			continue
		}
		x := rc.render(l, length)
		if rc.bed {
			normalizeRMS(x, rc.gain)
			if start > 0 { // a bed entering later fades in
				fadeIn(x, min(len(x)/2, int(0.4*float64(sr))))
			}
		} else if p := peakOf(x); p > 0 {
			scale(x, min(1, rc.gain*2.5)/p)
		}
		// Distance and brightness: duller, quieter, more of the room.
		cut := 16000 * c.Bright * (1 - 0.8*c.Distance)
		if cut < 15000 {
			lp := newFilter(lowpass, sr, cut, 0.7)
			lp.run(x)
		}
		g := (0.7 + 0.6*c.Weight) * (1 - 0.6*c.Distance)
		addAt(dry, x, start, g)
		addAt(send, x, start, g*(0.2+0.8*c.Distance))
	}

	rt, wet := sc.RoomRT, 0.35
	if rt == 0 {
		rt, wet = 0.7, 0.15 // outdoors: a little air, no room
	}
	ir := impulseResponse(r.fork(), sr, rt, 1)
	rev := convolve(send, ir)
	for i := range dry {
		dry[i] += wet * rev[i]
	}
	if o.Loop {
		// Wrap the reverb tail that ran past the end onto the start, then crossfade the extra
		// xfade samples into the head: the last output sample is followed by what came next in
		// the render, so the seam is as smooth as any other step.
		for i := total; i < len(rev) && i-total < total; i++ {
			dry[i-total] += wet * rev[i]
		}
		// The loop starts at the offset k (within 50 ms) whose seam step is the smallest.
		k := 0
		for j := 1; j < search; j++ {
			if math.Abs(dry[j+n]-dry[j+n-1]) < math.Abs(dry[k+n]-dry[k+n-1]) {
				k = j
			}
		}
		out := make([]float64, n)
		copy(out, dry[k:k+n])
		for i := 0; i < xfade; i++ {
			w := float64(i) / float64(xfade)
			a, b := math.Sin(0.5*math.Pi*w), math.Cos(0.5*math.Pi*w)
			out[i] = dry[k+i]*a + dry[k+n+i]*b
		}
		dry = out
		removeDC(dry) // a constant offset keeps the seam intact
	} else {
		// A DC blocker (brown noise drifts; transients are lopsided), then fades, so that the
		// file starts and ends at zero.
		dry = dry[:n]
		newFilter(highpass, sr, 20, 0.707).run(dry)
		fadeIn(dry, min(n/2, int(0.002*float64(sr))))
		fadeOut(dry, min(n/2, int(0.03*float64(sr))))
	}
	// Normalize to −1 dBFS.
	if p := peakOf(dry); p > 0 {
		scale(dry, 0.89/p)
	}
	return &Render{Samples: toInt16(dry), SampleRate: sr, Recipes: sc.Recipes(), Fallback: sc.Fallback}
}

func fadeIn(x []float64, n int) {
	for i := 0; i < n && i < len(x); i++ {
		x[i] *= float64(i) / float64(n)
	}
}

func fadeOut(x []float64, n int) {
	for i := 0; i < n && i < len(x); i++ {
		x[len(x)-1-i] *= float64(i) / float64(n)
	}
}

// removeDC subtracts the mean.
func removeDC(x []float64) {
	if len(x) == 0 {
		return
	}
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	for i := range x {
		x[i] -= m
	}
}

func toInt16(x []float64) []int16 {
	out := make([]int16, len(x))
	for i, v := range x {
		out[i] = int16(math.Round(max(-1, min(1, v)) * 32767))
	}
	return out
}

// Tags are the vocal non-speech sounds that dialogue audio tags ([laughs], [sighs], …) render
// with RenderTag.
var Tags = []string{"laugh", "breath", "sigh", "cough", "applause"}

// RenderTag renders one of Tags ("laugh", "breath", "sigh", "cough", "applause") dry (no room)
// at sampleRate, its natural length, peak 0.7, as floats in [-1, 1]: for other features to mix
// into speech. ok is false for any other name.
func RenderTag(name string, sampleRate int, seed uint64) ([]float32, bool) {
	rc, found := recipes[name]
	if !found || rc.family != "vocal" && name != "applause" || sampleRate < 8000 {
		return nil, false
	}
	r := newRNG(seed)
	l := &layer{r: r, sr: sampleRate, c: vary(r, defaultChar(), 0.7)}
	x := rc.render(l, int(rc.natural*float64(sampleRate)))
	removeDC(x)
	fadeOut(x, min(len(x)/2, sampleRate/50))
	p := peakOf(x)
	out := make([]float32, len(x))
	for i, v := range x {
		if p > 0 {
			v *= 0.7 / p
		}
		out[i] = float32(v)
	}
	return out, true
}
