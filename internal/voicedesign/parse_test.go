package voicedesign

import (
	"math"
	"reflect"
	"slices"
	"testing"
)

func TestParseTraits(t *testing.T) {
	for _, c := range []struct {
		desc                string
		gender, age, accent string
		pitch               string // "<", "=", ">" 1
		pace                string
		textures, moods     []string
	}{
		{"A deep elderly male voice, slow and calm", "male", "old", "", "<", "<", nil, []string{"calm"}},
		{"A high-pitched young girl, excited and fast", "female", "child", "", ">", ">", nil, []string{"excited"}},
		{"Middle-aged woman with a posh British accent", "female", "middle_aged", "rp", "=", "=", nil, nil},
		{"A raspy Scottish man in his 40s", "male", "middle_aged", "scottish", "<", "=", []string{"raspy"}, nil},
		{"a 7 year old boy who talks quickly", "male", "child", "", "=", ">", nil, nil},
		{"Warm, breathy narrator from Jamaica with a Jamaican accent", "", "", "caribbean", "=", "=", []string{"warm", "breathy"}, nil},
		{"An old-fashioned radio announcer, bright and energetic", "", "", "", ">", ">", []string{"bright"}, []string{"energetic"}},
		{"A very deep, booming voice", "", "", "", "<", "=", nil, nil},
		{"She speaks very slowly in a sad, husky tone", "female", "", "", "<", "<", []string{"husky"}, []string{"sad"}},
	} {
		tr := Parse(c.desc)
		if tr.Gender != c.gender || tr.Age != c.age || tr.Accent != c.accent {
			t.Errorf("%q: gender/age/accent = %q/%q/%q, want %q/%q/%q", c.desc, tr.Gender, tr.Age, tr.Accent, c.gender, c.age, c.accent)
		}
		if got := cmp1(tr.PitchFactor); got != c.pitch {
			t.Errorf("%q: pitch factor %.3f, want %s 1", c.desc, tr.PitchFactor, c.pitch)
		}
		if got := cmp1(tr.PaceFactor); got != c.pace {
			t.Errorf("%q: pace factor %.3f, want %s 1", c.desc, tr.PaceFactor, c.pace)
		}
		for _, w := range c.textures {
			if !slices.Contains(tr.Textures, w) {
				t.Errorf("%q: textures %v lack %q", c.desc, tr.Textures, w)
			}
		}
		for _, w := range c.moods {
			if !slices.Contains(tr.Moods, w) {
				t.Errorf("%q: moods %v lack %q", c.desc, tr.Moods, w)
			}
		}
	}
	// "old-fashioned" says nothing about age; "very deep" counts once, deeper than "deep".
	if a := Parse("an old-fashioned radio host").Age; a != "" {
		t.Errorf("old-fashioned parsed as age %q", a)
	}
	if vd, d := Parse("a very deep voice").PitchFactor, Parse("a deep voice").PitchFactor; !(vd < d) {
		t.Errorf("very deep %.3f not below deep %.3f", vd, d)
	}
}

func cmp1(x float64) string {
	switch {
	case x < 0.999:
		return "<"
	case x > 1.001:
		return ">"
	}
	return "="
}

func TestDesignPicksEngineAndMapsPitch(t *testing.T) {
	for _, c := range []struct {
		desc, engine, voice string
		flite               bool
	}{
		{"a calm young American woman", "flite", "slt", true},
		{"a deep elderly male voice", "flite", "kal16", true},
		{"a little girl telling a story", "flite", "slt", true},
		{"a warm Scottish man", "flite", "awb", true},
		{"a Scottish grandmother", "espeak", "en-gb-scotland+grandma", true},
		{"a posh British gentleman", "espeak", "en-gb-x-rp+m3", true},
		{"a raspy Caribbean man", "espeak", "en-029+croak", true},
		{"a young American woman", "espeak", "en-us+f3", false},
	} {
		p := Design(Parse(c.desc), c.flite)
		if p.Engine != c.engine || p.EngineVoice != c.voice {
			t.Errorf("%q: %s/%s, want %s/%s", c.desc, p.Engine, p.EngineVoice, c.engine, c.voice)
		}
		if p.Engine == "espeak" && (p.F0Hz != 0 || p.Formant != 0) {
			t.Errorf("%q: espeak voice keeps F0Hz %.0f / formant %.2f it would ignore", c.desc, p.F0Hz, p.Formant)
		}
	}
	// espeak-ng carries pitch in Pitch: a deep British man sits low, a British girl high.
	if lo, hi := Design(Parse("a very deep British man"), true).Pitch, Design(Parse("a high-pitched British girl"), true).Pitch; !(lo < 40 && hi > 60) {
		t.Errorf("espeak pitch: deep man %d, high girl %d; want < 40 and > 60", lo, hi)
	}
	old, girl := Design(Parse("deep elderly male"), true), Design(Parse("high-pitched young girl"), true)
	if girl.F0Hz/old.F0Hz < 2 || girl.Formant <= old.Formant || girl.Rate <= old.Rate {
		t.Errorf("girl %+v vs old man %+v: want far higher pitch, formant and rate", girl.Fit, old.Fit)
	}
}

func TestVariationsSeededAndGuided(t *testing.T) {
	p := Design(Parse("a calm young American woman"), true)
	a, b := Variations(p, 42, 5, 3), Variations(p, 42, 5, 3)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different previews")
	}
	if reflect.DeepEqual(a, Variations(p, 43, 5, 3)) {
		t.Error("another seed gave the same previews")
	}
	spreadF0 := func(vs []Params) float64 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range vs {
			lo, hi = math.Min(lo, v.F0Hz), math.Max(hi, v.F0Hz)
		}
		return hi - lo
	}
	for _, v := range a {
		if math.Abs(v.F0Hz/p.F0Hz-1) > Spread(5)+0.001 {
			t.Errorf("preview F0 %.1f strays beyond ±%.0f%% of %.1f", v.F0Hz, 100*Spread(5), p.F0Hz)
		}
	}
	loose, strict := spreadF0(Variations(p, 7, 0, 3)), spreadF0(Variations(p, 7, 100, 3))
	if !(loose > 5*strict) || spreadF0(a) < 0.05*p.F0Hz {
		t.Errorf("F0 spread: guidance 0 → %.1f Hz, 100 → %.1f Hz, 5 → %.1f Hz", loose, strict, spreadF0(a))
	}
	// The three previews differ from each other.
	if a[0].F0Hz == a[1].F0Hz || a[1].F0Hz == a[2].F0Hz || a[0].F0Hz == a[2].F0Hz {
		t.Errorf("previews share a pitch: %.1f %.1f %.1f", a[0].F0Hz, a[1].F0Hz, a[2].F0Hz)
	}
}

func TestRemixMovesOrRedesigns(t *testing.T) {
	cur := Params{Pitch: 50, Language: "en", Gender: "female", Age: "young", Accent: "american"}
	cur.Engine, cur.EngineVoice, cur.F0Hz, cur.Formant, cur.Rate, cur.PitchRange = "flite", "slt", 210, 1.03, 1, 50
	deeper := Remix(cur, Parse("deeper and slower, more calm"), true)
	if deeper.Engine != "flite" || deeper.EngineVoice != "slt" || deeper.F0Hz >= cur.F0Hz || deeper.Rate >= cur.Rate || deeper.PitchRange >= cur.PitchRange {
		t.Errorf("remix 'deeper and slower': %+v from %+v", deeper.Fit, cur.Fit)
	}
	// Naming an identity designs anew, keeping what is not said (American, female).
	older := Remix(cur, Parse("make her an elderly lady"), true)
	if older.Age != "old" || older.Gender != "female" || older.EngineVoice != "slt" || older.Rate >= cur.Rate {
		t.Errorf("remix 'elderly lady': %+v", older)
	}
	// espeak voices: pitch moves on espeak's scale, texture swaps the variant.
	es := Params{Pitch: 45, Language: "en", Gender: "male", Accent: "british"}
	es.Engine, es.EngineVoice, es.Rate, es.PitchRange = "espeak", "en-gb+m3", 1, 45
	r := Remix(es, Parse("higher and raspy"), true)
	if r.EngineVoice != "en-gb+croak" || r.Pitch <= es.Pitch {
		t.Errorf("espeak remix: %s pitch %d", r.EngineVoice, r.Pitch)
	}
}
