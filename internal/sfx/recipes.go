package sfx

import (
	"math"
	"sort"
)

// Char is a source's character, from the prompt's words (heavy, distant, metallic, low, fast, …)
// and varied by the seed as prompt_influence allows.
type Char struct {
	Pitch    float64 // frequency multiplier (low < 1 < high)
	Speed    float64 // event-rate / movement multiplier
	Weight   float64 // 0 light … 1 heavy (density, body, loudness)
	Distance float64 // 0 close … 1 far (duller, quieter, wetter)
	Bright   float64 // brightness multiplier of filters (muffled < 1)
	Metallic float64 // 0 … 1: ringing partials on impacts
	Wet      float64 // 0 … 1: splashy / watery
	Length   float64 // multiplier of the natural duration
	Surface  string  // footsteps: wood, gravel, snow, concrete, metal, grass, sand, water, tile
}

func defaultChar() Char {
	return Char{Pitch: 1, Speed: 1, Weight: 0.5, Bright: 1, Length: 1}
}

// layer is what a recipe renders with: its own random stream, rate and character.
type layer struct {
	r  *rng
	sr int
	c  Char
}

func (l *layer) secs(s float64) int { return int(s * float64(l.sr)) }
func (l *layer) t(i int) float64    { return float64(i) / float64(l.sr) }

// recipe is one kind of source. Beds fill their whole span (rain, wind, crowds); events are
// placed in their slot of the time line and may repeat within it (footsteps, knocks).
type recipe struct {
	name    string
	family  string
	bed     bool
	natural float64 // seconds, when the prompt gives no duration
	gain    float64 // loudness in the mix (RMS of the normalized layer)
	render  func(l *layer, n int) []float64
}

var recipes = map[string]*recipe{}

func add(r *recipe) { recipes[r.name] = r }

// Recipes are the names of every recipe, sorted.
func Recipes() []string {
	out := make([]string, 0, len(recipes))
	for k := range recipes {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ---- building blocks ----

// noiseBed is coloured noise through a filter whose cutoff wanders slowly (gusts, swells).
func noiseBed(l *layer, n int, color string, k filterKind, f, q, wander, rate float64) []float64 {
	out := make([]float64, n)
	var pk pink
	var br brown
	flt := newFilter(k, l.sr, f, q)
	lfo := newSmoother(l.sr, 0.6/rate)
	target := 0.0
	for i := range out {
		if i%2048 == 0 {
			target = l.r.w()
		}
		m := lfo.p(target)
		if i%32 == 0 {
			flt.set(k, l.sr, f*math.Exp(wander*m), q, 0)
		}
		var x float64
		switch color {
		case "pink":
			x = pk.next(l.r)
		case "brown":
			x = br.next(l.r)
		default:
			x = l.r.w()
		}
		out[i] = flt.p(x) * (1 + 0.5*wander*m)
	}
	return out
}

// burst is a noise hit: attack, exponential decay, band-limited.
func burst(l *layer, length, att, tau float64, k filterKind, f, q float64) []float64 {
	n := l.secs(length)
	out := make([]float64, n)
	flt := newFilter(k, l.sr, f, q)
	for i := range out {
		out[i] = flt.p(l.r.w()) * attackDecay(l.t(i), att, tau)
	}
	return out
}

// modes is modal synthesis: decaying sine partials (bells, metal, glass, wood).
func modes(l *layer, length float64, freqs, amps, taus []float64) []float64 {
	n := l.secs(length)
	out := make([]float64, n)
	for k, f := range freqs {
		if f >= 0.45*float64(l.sr) {
			continue
		}
		w := 2 * math.Pi * f / float64(l.sr)
		ph := l.r.f() * 2 * math.Pi
		d := math.Exp(-1 / (taus[k] * float64(l.sr)))
		a := amps[k]
		for i := range out {
			out[i] += a * math.Sin(w*float64(i)+ph)
			a *= d
			if a < 1e-5 {
				break
			}
		}
	}
	// A short strike transient.
	for i := 0; i < l.secs(0.003) && i < n; i++ {
		out[i] += 0.3 * l.r.w()
	}
	return out
}

// repeatEvery places one() about every interval seconds (jittered) through n samples.
func repeatEvery(l *layer, n int, interval, jitter float64, one func(k int) []float64) []float64 {
	out := make([]float64, n)
	t := l.r.rang(0, 0.3) * interval
	for k := 0; ; k++ {
		off := l.secs(t)
		if off >= n {
			break
		}
		addAt(out, one(k), off, 1)
		t += interval * (1 + jitter*l.r.w())
	}
	return out
}

// scatter places count random one()s per second (Poisson) through n samples.
func scatter(l *layer, n int, perSecond float64, one func() []float64) []float64 {
	out := make([]float64, n)
	t := 0.0
	for {
		t += -math.Log(1-l.r.f()) / perSecond
		off := l.secs(t)
		if off >= n {
			break
		}
		addAt(out, one(), off, 1)
	}
	return out
}

// sweepTone is a sine whose frequency glides from f0 to f1 over the length with an envelope.
func sweepTone(l *layer, length, f0, f1, att, tau float64) []float64 {
	n := l.secs(length)
	out := make([]float64, n)
	var o osc
	for i := range out {
		x := float64(i) / float64(max(1, n-1))
		f := f0 * math.Pow(f1/f0, x)
		out[i] = o.sin(f, l.sr) * attackDecay(l.t(i), att, tau)
	}
	return out
}

// fadeEdges applies short linear fades so a one-shot starts and ends at zero.
func fadeEdges(x []float64, n int) []float64 {
	n = min(n, len(x)/2)
	for i := 0; i < n; i++ {
		g := float64(i) / float64(n)
		x[i] *= g
		x[len(x)-1-i] *= g
	}
	return x
}

// vowel filters a source through three formant band-passes (F1–F3 of a vowel).
func vowel(l *layer, src []float64, f1, f2, f3 float64) []float64 {
	a := newFilter(bandpass, l.sr, f1, 5)
	b := newFilter(bandpass, l.sr, f2, 7)
	c := newFilter(bandpass, l.sr, f3, 9)
	out := make([]float64, len(src))
	for i, x := range src {
		out[i] = a.p(x) + 0.6*b.p(x) + 0.3*c.p(x)
	}
	return out
}

// voiced is a glottal source (pulses at f0 gliding to f1, with aspiration noise) of length s,
// shaped by env(t).
func voiced(l *layer, s, f0, f1, breath float64, env func(t float64) float64) []float64 {
	n := l.secs(s)
	out := make([]float64, n)
	var o osc
	for i := range out {
		x := float64(i) / float64(max(1, n-1))
		f := f0 * math.Pow(f1/f0, x) * (1 + 0.01*math.Sin(2*math.Pi*5.5*l.t(i)))
		out[i] = (o.pulse(f, l.sr) - 0.3 + breath*l.r.w()) * env(l.t(i))
	}
	return out
}
