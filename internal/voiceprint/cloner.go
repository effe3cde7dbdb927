package voiceprint

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"timbre/internal/engine"
	"timbre/internal/errs"
)

// calibrationText is what the cloner measures its voices on: Harvard sentences list 5 (IEEE
// 1969; not among the lists the tests speak), about 17 s of speech, long enough that the
// syllable rate averages over varied words.
const calibrationText = pitchProbeText + "The wide road shimmered in the hot sun. " +
	"The lazy cow lay in the cool grass. Lift the square stone over the fence. " +
	"The rope will bind the seven books at once. Hop over the fence and plunge in. " +
	"The friendly gang left the drug store. Mesh wire keeps chicks inside."

// pitchProbeText is the part of it the pitch probes speak: a median pitch settles sooner than a
// syllable rate.
const pitchProbeText = "A king ruled the state in the early days. The ship was torn apart on the sharp reef. " +
	"Sickness kept him home the third week. "

// Calibration: a voice follows F0Hz when asking for f0Probe[1] instead of f0Probe[0] moves its
// measured median pitch by at least minF0Slope as much (in octaves); flite's rms does not. It
// follows Rate when speaking rateProbe times faster raises its measured syllable rate by at least
// minRateSlope as much (in log terms); kal16, a diphone voice whose syllables blur when hurried
// (its measured rate barely moves, 0.1), does not.
var f0Probe = [2]float64{110, 190}

const (
	rateProbe    = 1.3
	minF0Slope   = 0.5
	minRateSlope = 0.3
	// A fit whose measured pitch is within fitF0Tol and rate within fitRateTol of the print
	// (relative) is kept as predicted; otherwise it is corrected.
	fitF0Tol, fitRateTol = 0.03, 0.05
	fitCacheMax          = 512
)

// Limits of what a fit asks of flite: Timbre's rate range and the engine's formant range.
const (
	minRate, maxRate       = 0.5, 2.0
	minFormant, maxFormant = 0.8, 1.3
)

// Cloner fits flite voices to prints by measurement: each base voice is synthesized and analysed
// once per process (with the same Analyse as the samples), and every fit is checked by
// synthesizing the calibration passage with it and analysing the result. Safe for concurrent use.
type Cloner struct {
	flite engine.Synthesizer
	*calibration
}

// calibration is what the cloners of one engine share in a process: the measured base voices
// and the fits made so far. The same engine (in process or a worker pool) gives the same audio,
// so a cloner made per request costs no new calibration.
type calibration struct {
	mu    sync.Mutex
	bases []*baseVoice // nil until calibrated
	fits  map[string]Fit
}

var (
	calibrationsMu sync.Mutex
	calibrations   = map[string]*calibration{}
)

// baseVoice is a flite voice as measured: its own print, how its median pitch answers F0Hz
// (log measured = a + b·log F0Hz) and how its syllable rate answers Rate (measured ∝ Rate^rateB).
type baseVoice struct {
	name, gender string
	own          *Print
	f0A, f0B     float64
	rateB        float64
}

// NewCloner fits voices of flite (engine.Flite, or a pool of it).
func NewCloner(flite engine.Synthesizer) *Cloner {
	calibrationsMu.Lock()
	defer calibrationsMu.Unlock()
	cal := calibrations[flite.Name()]
	if cal == nil {
		cal = &calibration{fits: map[string]Fit{}}
		calibrations[flite.Name()] = cal
	}
	return &Cloner{flite: flite, calibration: cal}
}

// Calibrate measures the base voices now rather than in the first Fit (a few seconds of
// synthesis and analysis, once per process): a server may call it in the background at start.
func (c *Cloner) Calibrate(ctx context.Context) error {
	_, err := c.calibrate(ctx)
	return err
}

// Analyse is the package's Analyse.
func (*Cloner) Analyse(pcm engine.PCM) (*Print, error) { return Analyse(pcm) }

// Merge is the package's Merge.
func (*Cloner) Merge(prints []*Print) *Print { return Merge(prints) }

// Prosody is the engine prosody that speaks a fit at the voice's normal settings (pitch 50).
func (f Fit) Prosody() engine.Prosody {
	return engine.Prosody{Rate: f.Rate, Pitch: 50, PitchRange: f.PitchRange, F0Hz: f.F0Hz, Formant: f.Formant}
}

// Fit chooses the flite voice nearest to p (same gender, then the most similar timbre among the
// voices that follow F0Hz) and sets its pitch, pitch range, rate and formant scale so that its
// measured figures match p's.
func (c *Cloner) Fit(ctx context.Context, p *Print) (Fit, error) {
	if p == nil || p.F0Median <= 0 || p.Rate <= 0 {
		return Fit{}, errs.New(errs.Invalid, "invalid_voiceprint", "the voiceprint has no pitch or speaking rate")
	}
	key := fitKey(p)
	c.mu.Lock()
	if f, ok := c.fits[key]; ok {
		c.mu.Unlock()
		return f, nil
	}
	c.mu.Unlock()
	bases, err := c.calibrate(ctx)
	if err != nil {
		return Fit{}, err
	}
	b := chooseBase(bases, p)

	fit := Fit{Engine: c.flite.Name(), EngineVoice: b.name}
	fit.F0Hz = math.Exp((math.Log(p.F0Median) - b.f0A) / b.f0B)
	fit.Rate = math.Pow(p.Rate/b.own.Rate, 1/b.rateB)
	fit.Formant = tractScale(p.Embedding, b.own.Embedding)
	if fit.Formant == 0 {
		fit.Formant = formantRatio(p, b.own)
	}
	rangeScale := 1.0
	if b.own.F0Range > 0 && p.F0Range > 0 {
		rangeScale = p.F0Range / b.own.F0Range
	}
	settle := func() {
		fit.Rate = clamp(fit.Rate, minRate, maxRate)
		fit.Formant = clamp(fit.Formant, minFormant, maxFormant)
		fit.PitchRange = int(math.Round(clamp(50*rangeScale, 0, 100)))
	}
	settle()
	// The prediction from the base's responses is measured once on the calibration passage and,
	// when off, corrected through the same responses (they are smooth: a second measurement
	// changed the figures by less than the text-to-text spread of the syllable rate).
	m, err := c.measure(ctx, b.name, fit.Prosody())
	if err != nil {
		return Fit{}, err
	}
	if f0Err, rateErr := m.F0Median/p.F0Median, m.Rate/p.Rate; math.Abs(f0Err-1) > fitF0Tol || math.Abs(rateErr-1) > fitRateTol {
		fit.F0Hz *= math.Pow(f0Err, -1/b.f0B)
		fit.Rate *= math.Pow(rateErr, -1/b.rateB)
		if m.F0Range > 0 && p.F0Range > 0 {
			rangeScale *= p.F0Range / m.F0Range
		}
		if k := tractScale(p.Embedding, m.Embedding); k > 0 {
			fit.Formant *= k
		}
		settle()
	}
	fit.F0Hz, fit.Rate, fit.Formant = round(fit.F0Hz, 1), round(fit.Rate, 3), round(fit.Formant, 3)
	c.mu.Lock()
	if len(c.fits) >= fitCacheMax {
		clear(c.fits)
	}
	c.fits[key] = fit
	c.mu.Unlock()
	return fit, nil
}

// calibrate measures the flite voices once per process (concurrently; flite synthesizes in
// parallel). A failure is not kept: the next Fit tries again.
func (c *Cloner) calibrate(ctx context.Context) ([]*baseVoice, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bases != nil {
		return c.bases, nil
	}
	voices, err := c.flite.Voices(ctx)
	if err != nil {
		return nil, err
	}
	all := make([]*baseVoice, len(voices))
	errc := make([]error, len(voices))
	var wg sync.WaitGroup
	for i, v := range voices {
		wg.Go(func() { all[i], errc[i] = c.calibrateVoice(ctx, v) })
	}
	wg.Wait()
	var bases []*baseVoice
	for i, b := range all {
		if errc[i] != nil {
			return nil, errc[i]
		}
		if b.f0B >= minF0Slope && b.rateB >= minRateSlope {
			bases = append(bases, b)
		}
	}
	if len(bases) == 0 {
		return nil, errs.New(errs.Unavailable, "no_clone_base", "no flite voice follows a requested pitch and rate")
	}
	c.bases = bases
	return bases, nil
}

func (c *Cloner) calibrateVoice(ctx context.Context, v engine.VoiceInfo) (*baseVoice, error) {
	own, err := c.measure(ctx, v.Name, engine.Prosody{Rate: 1, Pitch: 50, PitchRange: 50})
	if err != nil {
		return nil, err
	}
	var lm [2]float64
	for i, hz := range f0Probe {
		m, err := c.measureText(ctx, v.Name, engine.Prosody{Rate: 1, Pitch: 50, PitchRange: 50, F0Hz: hz}, pitchProbeText)
		if err != nil {
			return nil, err
		}
		lm[i] = math.Log(m.F0Median)
	}
	fast, err := c.measure(ctx, v.Name, engine.Prosody{Rate: rateProbe, Pitch: 50, PitchRange: 50})
	if err != nil {
		return nil, err
	}
	b := &baseVoice{name: v.Name, gender: v.Gender, own: own}
	b.f0B = (lm[1] - lm[0]) / math.Log(f0Probe[1]/f0Probe[0])
	b.f0A = lm[0] - b.f0B*math.Log(f0Probe[0])
	b.rateB = math.Log(fast.Rate/own.Rate) / math.Log(rateProbe)
	return b, nil
}

// measure synthesizes the calibration passage with a voice and prosody and analyses it.
func (c *Cloner) measure(ctx context.Context, voice string, pr engine.Prosody) (*Print, error) {
	return c.measureText(ctx, voice, pr, calibrationText)
}

func (c *Cloner) measureText(ctx context.Context, voice string, pr engine.Prosody, text string) (*Print, error) {
	res, err := c.flite.Synthesize(ctx, engine.Request{Text: text, Voice: voice, Prosody: pr})
	if err != nil {
		return nil, err
	}
	p, err := Analyse(res.Audio)
	if err != nil {
		// The engine's own speech must analyse: anything else is a fault, not bad input.
		return nil, fmt.Errorf("voiceprint: measuring flite %s: %w", voice, err)
	}
	return p, nil
}

// chooseBase is the base voice of p's gender (any, when none is) whose timbre is most similar.
func chooseBase(bases []*baseVoice, p *Print) *baseVoice {
	cands := slices.DeleteFunc(slices.Clone(bases), func(b *baseVoice) bool { return b.gender != p.Gender })
	if len(cands) == 0 {
		cands = bases
	}
	best, bestSim := cands[0], -1.0
	for _, b := range cands {
		if s := Similarity(timbre(p.Embedding), timbre(b.own.Embedding)); s > bestSim {
			best, bestSim = b, s
		}
	}
	return best
}

// timbre is an embedding without its pitch part: a base voice's pitch is replaced anyway.
func timbre(e []float64) []float64 {
	if len(e) != embeddingLen {
		return e
	}
	out := slices.Clone(e)
	clear(out[2*embCeps : 2*embCeps+embPitchDims])
	return out
}

// formantRatio is how much higher want's formants are than got's (geometric mean over F1–F3).
func formantRatio(want, got *Print) float64 {
	var s float64
	n := 0
	for i := range want.Formants {
		if want.Formants[i] > 0 && got.Formants[i] > 0 {
			s += math.Log(want.Formants[i] / got.Formants[i])
			n++
		}
	}
	if n == 0 {
		return 1
	}
	return math.Exp(s / float64(n))
}

func clamp(x, lo, hi float64) float64 { return min(max(x, lo), hi) }

// fitKey identifies a print by the figures a fit depends on.
func fitKey(p *Print) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %.2f %.3f %.3f %.1f %.1f %.1f", p.Gender, p.F0Median, p.F0Range, p.Rate, p.Formants[0], p.Formants[1], p.Formants[2])
	for _, v := range p.Embedding {
		fmt.Fprintf(&b, " %.4f", v)
	}
	return b.String()
}
