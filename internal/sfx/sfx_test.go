package sfx

import (
	"math"
	"math/cmplx"
	"slices"
	"testing"
	"time"
)

// TestRecipeCount: the library has at least 40 source recipes, and every lexicon word and
// category names a real one.
func TestRecipeCount(t *testing.T) {
	if n := len(Recipes()); n < 40 {
		t.Fatalf("%d recipes, want at least 40", n)
	}
	for w, x := range lexicon {
		if x.recipe != "" && recipes[x.recipe] == nil {
			t.Errorf("word %q names unknown recipe %q", w, x.recipe)
		}
	}
	for w, rs := range categories {
		for _, r := range rs {
			if recipes[r] == nil {
				t.Errorf("category %q names unknown recipe %q", w, r)
			}
		}
	}
}

// TestEveryRecipeRenders: each recipe alone makes audible, finite, non-clipping sound.
func TestEveryRecipeRenders(t *testing.T) {
	for _, name := range Recipes() {
		sc := &Scene{Groups: 1, Sources: []Source{{Recipe: name, Char: defaultChar()}}}
		r := RenderScene(sc, Options{Duration: 1.5, Seed: 7, Influence: 0.5})
		if len(r.Samples) != int(1.5*SampleRate) {
			t.Errorf("%s: %d samples", name, len(r.Samples))
		}
		var e float64
		distinct := map[int16]bool{}
		for _, s := range r.Samples {
			e += float64(s) * float64(s)
			distinct[s] = true
		}
		if len(distinct) < 200 { // a NaN or a stuck filter ends as a few constant values
			t.Errorf("%s: only %d distinct sample values", name, len(distinct))
		}
		if rms := math.Sqrt(e/float64(len(r.Samples))) / 32768; rms < 0.005 {
			t.Errorf("%s: rms %.4f: silent", name, rms)
		}
	}
}

func TestParse(t *testing.T) {
	cases := []struct {
		text string
		want []string // recipes in time-line order
		grps int
	}{
		{"a door creaks then slams", []string{"door_creak", "door_slam"}, 2},
		{"thunder after rain", []string{"rain", "thunder"}, 2},
		{"heavy rain with distant thunder", []string{"rain", "thunder"}, 1},
		{"Footsteps on gravel", []string{"footsteps"}, 1},
		{"glass window shattering", []string{"glass_break"}, 1},
		{"a dog barking in the distance", []string{"dog_bark"}, 1},
		{"thundr and rainn", []string{"thunder", "rain"}, 1},      // edit distance
		{"explosions", []string{"explosion"}, 1},                  // stem
		{"a quiet city street at night", []string{"crickets"}, 1}, // "night"
		{"xyzzy plugh", []string{"room_tone", "whoosh"}, 1},       // nothing known: neutral fallback
		{"the city at noon", []string{"car_pass", "crowd"}, 1},    // category fallback
	}
	for _, c := range cases {
		sc := Parse(c.text)
		if got := sc.Recipes(); !slices.Equal(got, c.want) || sc.Groups != c.grps {
			t.Errorf("Parse(%q) = %v in %d groups, want %v in %d", c.text, got, sc.Groups, c.want, c.grps)
		}
	}
	sc := Parse("heavy rain with distant thunder")
	if sc.Sources[0].Char.Weight <= 0.5 || sc.Sources[0].Char.Distance != 0 || sc.Sources[1].Char.Distance < 0.5 {
		t.Errorf("character words went to the wrong source: %+v", sc.Sources)
	}
	if sc := Parse("footsteps on wooden stairs in an echoing hall"); sc.Sources[0].Char.Surface != "wood" || sc.RoomRT < 2 {
		t.Errorf("surface/room: %+v", sc)
	}
}

// TestDurationExact: requested durations are exact to 10 ms (here: to the sample), looped or not.
func TestDurationExact(t *testing.T) {
	for _, d := range []float64{0.5, 1.234, 7, 30} {
		for _, loop := range []bool{false, true} {
			r := Generate(Options{Text: "rain on a window then thunder", Duration: d, Loop: loop, Seed: 1, Influence: 0.3})
			if got := r.Seconds(); math.Abs(got-d) > 0.01 {
				t.Errorf("duration %g loop %v: got %.4f s", d, loop, got)
			}
		}
	}
	if r := Generate(Options{Text: "a door slams", Seed: 1}); r.Seconds() < MinDuration || r.Seconds() > 3 {
		t.Errorf("auto duration of a door slam: %.2f s", r.Seconds())
	}
}

// TestLoopSeam: a looped effect wraps without a click: the step from the last sample to the
// first is no bigger than a typical (median) step inside the audio.
func TestLoopSeam(t *testing.T) {
	for _, text := range []string{"heavy rain", "campfire crackling", "wind howling", "car engine idling", "crowd murmur in a hall", "machine hum"} {
		for seed := uint64(1); seed <= 3; seed++ {
			r := Generate(Options{Text: text, Duration: 5, Loop: true, Seed: seed, Influence: 0.3})
			s := r.Samples
			steps := make([]float64, len(s)-1)
			for i := 1; i < len(s); i++ {
				steps[i-1] = math.Abs(float64(s[i]) - float64(s[i-1]))
			}
			slices.Sort(steps)
			typical := steps[len(steps)/2]
			seam := math.Abs(float64(s[0]) - float64(s[len(s)-1]))
			if seam > typical {
				t.Errorf("%q seed %d: seam step %.0f > typical step %.0f", text, seed, seam, typical)
			}
		}
	}
}

// TestSeedRepeatable: the same seed and prompt give identical samples; another seed differs.
func TestSeedRepeatable(t *testing.T) {
	o := Options{Text: "a door creaks then slams in a castle", Duration: 3, Seed: 42, Influence: 0.2}
	a, b := Generate(o), Generate(o)
	if !slices.Equal(a.Samples, b.Samples) {
		t.Fatal("same seed, different audio")
	}
	o.Seed = 43
	if c := Generate(o); slices.Equal(a.Samples, c.Samples) {
		t.Fatal("different seeds, same audio")
	}
}

// centroid is the spectral centroid (Hz) of x.
func centroid(x []int16, sr int) float64 {
	n := 1 << 15
	var num, den float64
	for off := 0; off+n <= len(x); off += n {
		z := make([]complex128, n)
		for i := range z {
			w := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n))
			z[i] = complex(float64(x[off+i])*w, 0)
		}
		fft(z, false)
		for k := 1; k < n/2; k++ {
			m := cmplx.Abs(z[k])
			num += m * float64(k) * float64(sr) / float64(n)
			den += m
		}
	}
	return num / den
}

// TestCharacterMovesSpectrum: "low thunder" sounds lower than "high whistle", and "low" lowers a
// source against itself.
func TestCharacterMovesSpectrum(t *testing.T) {
	thunder := Generate(Options{Text: "low thunder", Duration: 4, Seed: 3, Influence: 1})
	whistle := Generate(Options{Text: "high whistle", Duration: 4, Seed: 3, Influence: 1})
	ct, cw := centroid(thunder.Samples, SampleRate), centroid(whistle.Samples, SampleRate)
	if ct >= cw {
		t.Fatalf("low thunder centroid %.0f Hz ≥ high whistle %.0f Hz", ct, cw)
	}
	lo := centroid(Generate(Options{Text: "low engine", Duration: 3, Seed: 3, Influence: 1}).Samples, SampleRate)
	hi := centroid(Generate(Options{Text: "high engine", Duration: 3, Seed: 3, Influence: 1}).Samples, SampleRate)
	if lo >= hi {
		t.Fatalf("low engine %.0f Hz ≥ high engine %.0f Hz", lo, hi)
	}
	t.Logf("centroids: low thunder %.0f, high whistle %.0f, low engine %.0f, high engine %.0f", ct, cw, lo, hi)
}

// TestInfluenceVaries: low prompt influence varies the character more across seeds than high.
func TestInfluenceVaries(t *testing.T) {
	spread := func(inf float64) float64 {
		var ps []float64
		for s := uint64(0); s < 40; s++ {
			c := vary(newRNG(s), defaultChar(), inf)
			ps = append(ps, math.Log(c.Pitch))
		}
		m := 0.0
		for _, p := range ps {
			m += p * p
		}
		return math.Sqrt(m / float64(len(ps)))
	}
	if lo, hi := spread(0), spread(1); lo < 3*hi {
		t.Fatalf("pitch spread at influence 0: %.3f, at 1: %.3f", lo, hi)
	}
}

func TestRenderTag(t *testing.T) {
	for _, name := range Tags {
		x, ok := RenderTag(name, 24000, 1)
		if !ok || len(x) < 12000 {
			t.Fatalf("%s: ok %v, %d samples", name, ok, len(x))
		}
		p := 0.0
		for _, v := range x {
			p = math.Max(p, math.Abs(float64(v)))
		}
		if math.Abs(p-0.7) > 0.01 {
			t.Errorf("%s: peak %.3f", name, p)
		}
		y, _ := RenderTag(name, 24000, 1)
		if !slices.Equal(x, y) {
			t.Errorf("%s: not repeatable", name)
		}
	}
	if _, ok := RenderTag("thunder", 24000, 1); ok {
		t.Error("thunder is not a tag")
	}
}

// BenchmarkSFX10s renders a 10-second, four-source scene (goal in scripts/bench.sh: < 1 s).
func BenchmarkSFX10s(b *testing.B) {
	start := time.Now()
	for i := 0; i < b.N; i++ {
		Generate(Options{Text: "heavy rain with distant thunder and wind in a forest", Duration: 10, Seed: uint64(i), Influence: 0.3})
	}
	per := time.Since(start).Seconds() / float64(b.N)
	b.ReportMetric(per*1000, "ms/render")
	b.ReportMetric(10/per, "x-rt")
}
