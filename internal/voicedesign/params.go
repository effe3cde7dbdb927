package voicedesign

import (
	"math"
	"math/rand/v2"
	"strings"

	"timbre/internal/voice"
	"timbre/internal/voiceprint"
)

// Params is a designed voice: a base voice of an embedded engine and how it is shaped.
type Params struct {
	voiceprint.Fit
	// Pitch is the 0–100 pitch (50 = the base voice's own): espeak-ng ignores F0Hz and Formant,
	// so its voices carry the described pitch here; flite voices keep 50 and use F0Hz.
	Pitch    int    `json:"pitch"`
	Language string `json:"language"`
	// Labels of the voice as described.
	Gender string `json:"gender"`
	Age    string `json:"age"`
	Accent string `json:"accent"`
	// Loudness is the API's loudness (−1…1) a preview was made at.
	Loudness float64 `json:"loudness"`
}

// Base is how the voice is stored (voice.BaseProsody, a voice's prosody JSON).
func (p Params) Base() voice.BaseProsody {
	return voice.BaseProsody{Pitch: p.Pitch, PitchRange: p.PitchRange, Rate: p.Rate, F0Hz: p.F0Hz, Formant: p.Formant}
}

// Bounds of what the engines are asked for.
const (
	minF0, maxF0           = 60.0, 450.0
	minFormant, maxFormant = 0.75, 1.35
	minRate, maxRate       = 0.5, 2.0
)

// Typical mean pitch (Hz) by gender and age: the centre a description's pitch words move from.
var baseF0 = map[string]map[string]float64{
	"male":   {"child": 255, "young": 128, "middle_aged": 115, "old": 105, "": 118},
	"female": {"child": 285, "young": 215, "middle_aged": 200, "old": 185, "": 205},
}

// nominalF0 is the pitch espeak-ng's 50 stands for, by gender (to map Hz onto its 0–100 scale).
var nominalF0 = map[string]float64{"male": 118, "female": 205}

// Age shapes the vocal tract (a child's is short: formants ~20 % higher), the pace and the range.
var (
	ageFormant = map[string]float64{"child": 1.22, "young": 1.03, "middle_aged": 1, "old": 0.97, "": 1}
	ageRate    = map[string]float64{"child": 1.05, "young": 1.04, "middle_aged": 1, "old": 0.88, "": 1}
	ageRange   = map[string]float64{"child": 62, "young": 55, "middle_aged": 50, "old": 45, "": 50}
)

// espeakAccents are the espeak-ng English voices for accents flite lacks.
var espeakAccents = map[string]string{
	"american": "en-us", "british": "en-gb", "rp": "en-gb-x-rp", "scottish": "en-gb-scotland",
	"caribbean": "en-029", "lancashire": "en-gb-x-gbclan", "midlands": "en-gb-x-gbcwmd",
}

// Design is the parametric voice a description's traits call for. hasFlite says whether the
// flite engine (clearer, and it follows F0Hz and Formant) is available; espeak-ng always is.
func Design(t Traits, hasFlite bool) Params {
	gender := t.Gender
	if gender == "" {
		// Unsaid: a voice described as deep is taken as male, any other as female.
		gender = "female"
		if t.PitchFactor < 0.9 {
			gender = "male"
		}
	}
	f0 := baseF0[gender][t.Age] * t.PitchFactor
	p := Params{
		Fit: voiceprint.Fit{
			F0Hz:       clampF(f0, minF0, maxF0),
			Formant:    clampF(ageFormant[t.Age]+t.FormantShift, minFormant, maxFormant),
			Rate:       clampF(ageRate[t.Age]*t.PaceFactor, minRate, maxRate),
			PitchRange: int(math.Round(clampF(ageRange[t.Age]+t.RangeShift, 0, 100))),
		},
		Pitch: 50, Language: "en", Gender: gender, Age: t.Age, Accent: t.Accent,
	}
	if p.Accent == "" {
		p.Accent = "american"
	}
	female := gender == "female" || t.Age == "child"
	switch {
	case hasFlite && p.Accent == "american" && female:
		p.Engine, p.EngineVoice = "flite", "slt" // a child is the female voice with a short tract
	case hasFlite && p.Accent == "american":
		p.Engine, p.EngineVoice = "flite", "kal16" // rms, the other American male, ignores F0Hz
	case hasFlite && p.Accent == "scottish" && !female:
		p.Engine, p.EngineVoice = "flite", "awb"
	default:
		p.Engine, p.EngineVoice = "espeak", espeakAccents[p.Accent]+"+"+espeakVariant(t, gender, female)
		p.toEspeak(gender, female)
	}
	if p.Accent == "rp" {
		p.Accent = "british"
	}
	return p
}

// espeakVariant picks the espeak-ng variant: the texture's, else by gender and age.
func espeakVariant(t Traits, gender string, female bool) string {
	if v := t.espeakVariant(female); v != "" {
		return v
	}
	switch {
	case t.Age == "old" && gender == "male":
		return "grandpa"
	case t.Age == "old":
		return "grandma"
	case t.Age == "child":
		return "f4"
	case female:
		return "f3"
	default:
		return "m3"
	}
}

// toEspeak moves F0Hz onto espeak-ng's pitch scale and drops what espeak ignores.
func (p *Params) toEspeak(gender string, female bool) {
	nominal := nominalF0[gender]
	if female {
		nominal = nominalF0["female"]
	}
	p.Pitch = int(math.Round(clampF(50+100*math.Log2(p.F0Hz/nominal), 0, 100)))
	p.F0Hz, p.Formant = 0, 0
}

// Spread is how far previews stray from the description's centre (a fraction): guidance_scale
// 0 lets them wander ±25 % in pitch, the default 5 ±11 %, 100 keeps them within ±1 %.
func Spread(guidance float64) float64 { return 0.25 / (1 + guidance/4) }

// Variations are n previews of p, spread by guidance: each parameter's values are drawn from n
// separate strata of the range, so the previews differ audibly, and the same seed gives the same.
func Variations(p Params, seed uint64, guidance float64, n int) []Params {
	rng := rand.New(rand.NewPCG(seed, 0x766f696365))
	s := Spread(guidance)
	draw := func() []float64 { // n values in [-1, 1], one per stratum, in random order
		u := make([]float64, n)
		for i, k := range rng.Perm(n) {
			centre := 0.0
			if n > 1 {
				centre = 2*float64(k)/float64(n-1) - 1
			}
			u[i] = clampF(0.7*centre+0.3*(2*rng.Float64()-1), -1, 1)
		}
		return u
	}
	uf0, uform, urate, urange := draw(), draw(), draw(), draw()
	out := make([]Params, n)
	for i := range out {
		q := p
		if q.F0Hz > 0 {
			q.F0Hz = clampF(q.F0Hz*(1+s*uf0[i]), minF0, maxF0)
		} else {
			q.Pitch = int(math.Round(clampF(float64(q.Pitch)+100*math.Log2(1+s*uf0[i]), 0, 100)))
		}
		if q.Formant > 0 {
			q.Formant = clampF(q.Formant+0.4*s*uform[i], minFormant, maxFormant)
		}
		q.Rate = clampF(q.Rate*(1+0.5*s*urate[i]), minRate, maxRate)
		q.PitchRange = int(math.Round(clampF(float64(q.PitchRange)+40*s*urange[i], 0, 100)))
		q.F0Hz, q.Formant, q.Rate = round2(q.F0Hz), round3(q.Formant), round3(q.Rate)
		out[i] = q
	}
	return out
}

// Remix moves an existing voice by a description. A description that names an identity (gender,
// age or accent) designs a new base voice, filling what it does not say from the current voice;
// otherwise the current voice's pitch, pace, range and timbre move by the description's words.
func Remix(cur Params, t Traits, hasFlite bool) Params {
	if t.Said() {
		if t.Gender == "" {
			t.Gender = cur.Gender
		}
		if t.Age == "" {
			t.Age = cur.Age
		}
		if t.Accent == "" {
			t.Accent = cur.Accent
		}
		return Design(t, hasFlite)
	}
	p := cur
	if p.F0Hz > 0 {
		p.F0Hz = clampF(p.F0Hz*t.PitchFactor, minF0, maxF0)
	} else {
		p.Pitch = int(math.Round(clampF(float64(p.Pitch)+100*math.Log2(t.PitchFactor), 0, 100)))
	}
	if p.Engine == "flite" {
		base := p.Formant
		if base <= 0 {
			base = 1
		}
		p.Formant = clampF(base+t.FormantShift, minFormant, maxFormant)
	}
	if p.Engine == "espeak" {
		female := p.Gender == "female" || p.Age == "child"
		if v := t.espeakVariant(female); v != "" {
			name, _, _ := strings.Cut(p.EngineVoice, "+")
			p.EngineVoice = name + "+" + v
		}
	}
	if p.Rate <= 0 {
		p.Rate = 1
	}
	p.Rate = clampF(p.Rate*t.PaceFactor, minRate, maxRate)
	p.PitchRange = int(math.Round(clampF(float64(p.PitchRange)+t.RangeShift, 0, 100)))
	return p
}

// FromVoice is an existing voice's parameters (for remixing).
func FromVoice(engineName, engineVoice, lang string, b voice.BaseProsody, labels map[string]string) Params {
	return Params{
		Fit:   voiceprint.Fit{Engine: engineName, EngineVoice: engineVoice, F0Hz: b.F0Hz, Formant: b.Formant, Rate: b.Rate, PitchRange: b.PitchRange},
		Pitch: b.Pitch, Language: lang, Gender: labels["gender"], Age: labels["age"], Accent: labels["accent"],
	}
}

func clampF(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }
func round2(x float64) float64         { return math.Round(x*100) / 100 }
func round3(x float64) float64         { return math.Round(x*1000) / 1000 }

// WithReference moves a described voice towards a reference recording's fitted voice: weight
// is the API's prompt_strength (0: almost only the recording, 1: almost only the description).
// Pitch, vocal tract and pace are blended on a log scale; the base voice is the recording's when
// it weighs more, else the description's (espeak-ng voices carry pitch on their own scale).
func WithReference(desc Params, ref voiceprint.Fit, weight float64) Params {
	mix := func(a, b float64) float64 { // a: the description's, b: the recording's
		if a <= 0 || b <= 0 {
			return max(a, b)
		}
		return math.Exp(weight*math.Log(a) + (1-weight)*math.Log(b))
	}
	female := desc.Gender == "female" || desc.Age == "child"
	descF0 := desc.F0Hz
	if desc.Engine == "espeak" {
		nominal := nominalF0[desc.Gender]
		if female {
			nominal = nominalF0["female"]
		}
		descF0 = nominal * math.Pow(2, float64(desc.Pitch-50)/100)
	}
	f0 := clampF(mix(descF0, ref.F0Hz), minF0, maxF0)
	out := desc
	if weight < 0.5 || desc.Engine != "espeak" {
		if weight < 0.5 {
			out.Engine, out.EngineVoice, out.Pitch = ref.Engine, ref.EngineVoice, 50
		}
		descFormant := desc.Formant
		if descFormant == 0 {
			descFormant = 1
		}
		out.F0Hz = f0
		out.Formant = clampF(mix(descFormant, ref.Formant), minFormant, maxFormant)
		out.PitchRange = int(math.Round(weight*float64(desc.PitchRange) + (1-weight)*float64(ref.PitchRange)))
	} else {
		out.Pitch = int(math.Round(clampF(float64(desc.Pitch)+100*math.Log2(f0/descF0), 0, 100)))
	}
	out.Rate = clampF(mix(desc.Rate, ref.Rate), minRate, maxRate)
	if weight < 0.5 { // the recording decides who is speaking
		out.Gender = "female"
		if f0 < 165 {
			out.Gender = "male"
		}
	}
	return out
}

// QualityGuidance folds the API's quality (−1…1: higher is better output, less variety) into
// guidance: quality q scales the previews' spread by 1 − q/2.
func QualityGuidance(guidance, quality float64) float64 {
	k := 1 - quality/2
	return max(0, 4*((1+guidance/4)/k-1))
}
