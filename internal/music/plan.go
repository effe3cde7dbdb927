// Package music composes songs offline: a composition plan (the API's MusicPrompt: global and
// per-section styles, section durations) is turned into musical parameters (genre, tempo, key,
// mode, instruments, per-section dynamics), an arrangement of MIDI events (chords, bass, melody,
// drums) is generated from them, played on a General MIDI soundfont with FluidSynth, and mixed
// and mastered (fade-out, loudness normalisation, peak limiter). It is algorithmic composition,
// not a neural model; a neural engine plugs in over HTTP (Remote).
package music

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Section is one section of a plan (the API's SongSection).
type Section struct {
	SectionName         string   `json:"section_name"`
	PositiveLocalStyles []string `json:"positive_local_styles"`
	NegativeLocalStyles []string `json:"negative_local_styles"`
	DurationMs          int      `json:"duration_ms"`
	Lines               []string `json:"lines"`
}

// Plan is a composition plan (the API's MusicPrompt).
type Plan struct {
	PositiveGlobalStyles []string  `json:"positive_global_styles"`
	NegativeGlobalStyles []string  `json:"negative_global_styles"`
	Sections             []Section `json:"sections"`
}

// Limits of plans and lengths, as the API documents them.
const (
	MinLengthMs        = 3000
	MaxLengthMs        = 600000
	MinSectionMs       = 3000
	MaxSectionMs       = 120000
	MaxSections        = 30
	MaxStyles          = 50
	MaxLines           = 30
	MaxLineChars       = 200
	MaxSectionName     = 100
	MaxPromptChars     = 4100
	MaxLyricsChars     = 4000
	DefaultLengthMs    = 30000
	maxStyleChars      = 200
	defaultFadeOutMs   = 2000
	minBarsForSections = 2
)

// DurationMs is the plan's total length.
func (p *Plan) DurationMs() int {
	n := 0
	for _, s := range p.Sections {
		n += s.DurationMs
	}
	return n
}

// HasLyrics says whether any section has a line to sing.
func (p *Plan) HasLyrics() bool {
	for _, s := range p.Sections {
		for _, l := range s.Lines {
			if strings.TrimSpace(l) != "" {
				return true
			}
		}
	}
	return false
}

// Normalize turns absent lists into empty ones (the API requires the keys, as arrays).
func (p *Plan) Normalize() {
	nz := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	p.PositiveGlobalStyles, p.NegativeGlobalStyles = nz(p.PositiveGlobalStyles), nz(p.NegativeGlobalStyles)
	if p.Sections == nil {
		p.Sections = []Section{}
	}
	for i := range p.Sections {
		s := &p.Sections[i]
		s.PositiveLocalStyles, s.NegativeLocalStyles, s.Lines = nz(s.PositiveLocalStyles), nz(s.NegativeLocalStyles), nz(s.Lines)
	}
}

// Genre is what a genre means to the composer.
type Genre struct {
	Name     string
	BPM      float64
	Minor    bool
	Lead     int // General MIDI programs
	Chords   int
	Bass     int
	Pad      int
	Swing    float64 // 0 straight … 0.33 triplet swing of the off-beat eighths
	Drums    string  // drum pattern family
	Comp     string  // how the chord instrument plays: "pad", "strum", "comp", "arp", "stab"
	Sevenths bool
}

// genres, looked up by the words of the styles (first match wins; order matters for words that
// contain others: "hip hop" before "hop").
var genres = []struct {
	words []string
	g     Genre
}{
	{[]string{"lo-fi", "lofi", "lo fi", "chillhop"}, Genre{Name: "lo-fi", BPM: 80, Lead: 4, Chords: 4, Bass: 32, Pad: 89, Swing: 0.2, Drums: "boombap", Comp: "pad", Sevenths: true}},
	{[]string{"hip-hop", "hip hop", "hiphop", "rap", "trap"}, Genre{Name: "hip-hop", BPM: 90, Minor: true, Lead: 80, Chords: 0, Bass: 38, Pad: 89, Swing: 0.12, Drums: "boombap", Comp: "stab", Sevenths: true}},
	{[]string{"jazz", "swing", "bebop", "bossa"}, Genre{Name: "jazz", BPM: 140, Lead: 65, Chords: 0, Bass: 32, Pad: 48, Swing: 0.3, Drums: "swing", Comp: "comp", Sevenths: true}},
	{[]string{"blues"}, Genre{Name: "blues", BPM: 96, Lead: 27, Chords: 0, Bass: 33, Pad: 16, Swing: 0.3, Drums: "shuffle", Comp: "comp", Sevenths: true}},
	{[]string{"metal"}, Genre{Name: "metal", BPM: 150, Minor: true, Lead: 30, Chords: 30, Bass: 34, Pad: 48, Drums: "rock", Comp: "strum"}},
	{[]string{"rock", "punk", "grunge"}, Genre{Name: "rock", BPM: 120, Lead: 29, Chords: 29, Bass: 34, Pad: 16, Drums: "rock", Comp: "strum"}},
	{[]string{"edm", "house", "techno", "trance", "electronic", "dance", "synthwave", "disco"}, Genre{Name: "electronic", BPM: 124, Minor: true, Lead: 81, Chords: 90, Bass: 38, Pad: 89, Drums: "four", Comp: "stab"}},
	{[]string{"ambient", "drone", "meditation", "atmospheric"}, Genre{Name: "ambient", BPM: 70, Lead: 88, Chords: 89, Bass: 95, Pad: 91, Drums: "none", Comp: "pad"}},
	{[]string{"cinematic", "orchestral", "epic", "film", "soundtrack", "trailer"}, Genre{Name: "cinematic", BPM: 90, Minor: true, Lead: 40, Chords: 48, Bass: 43, Pad: 52, Drums: "epic", Comp: "pad"}},
	{[]string{"classical", "baroque", "piano solo"}, Genre{Name: "classical", BPM: 100, Lead: 0, Chords: 0, Bass: 0, Pad: 48, Drums: "none", Comp: "arp"}},
	{[]string{"funk", "soul", "r&b", "rnb"}, Genre{Name: "funk", BPM: 105, Minor: true, Lead: 61, Chords: 4, Bass: 36, Pad: 16, Swing: 0.1, Drums: "funk", Comp: "stab", Sevenths: true}},
	{[]string{"reggae", "ska", "dub"}, Genre{Name: "reggae", BPM: 80, Lead: 16, Chords: 27, Bass: 33, Pad: 16, Drums: "reggae", Comp: "stab"}},
	{[]string{"country", "folk", "bluegrass", "americana"}, Genre{Name: "folk", BPM: 110, Lead: 22, Chords: 25, Bass: 32, Pad: 48, Drums: "rock", Comp: "strum"}},
	{[]string{"pop"}, Genre{Name: "pop", BPM: 110, Lead: 80, Chords: 0, Bass: 33, Pad: 89, Drums: "pop", Comp: "strum"}},
}

var defaultGenre = genres[len(genres)-1].g

// instruments named in styles, with their General MIDI program; "lead" instruments replace the
// melody's, others the chords'.
var instruments = []struct {
	words []string
	prog  int
	lead  bool
}{
	{[]string{"electric piano", "rhodes", "wurlitzer"}, 4, false},
	{[]string{"piano", "keys"}, 0, false},
	{[]string{"organ", "hammond"}, 16, false},
	{[]string{"acoustic guitar"}, 25, false},
	{[]string{"distorted guitar", "heavy guitar"}, 30, true},
	{[]string{"electric guitar", "guitar solo"}, 27, true},
	{[]string{"guitar"}, 25, false},
	{[]string{"strings", "string section", "orchestra"}, 48, false},
	{[]string{"violin", "fiddle"}, 40, true},
	{[]string{"cello"}, 42, true},
	{[]string{"saxophone", "sax"}, 65, true},
	{[]string{"trumpet", "brass"}, 56, true},
	{[]string{"flute"}, 73, true},
	{[]string{"clarinet"}, 71, true},
	{[]string{"harp"}, 46, false},
	{[]string{"marimba", "mallets"}, 12, true},
	{[]string{"vibraphone", "vibes"}, 11, true},
	{[]string{"bells", "glockenspiel", "music box"}, 10, true},
	{[]string{"synth pad", "pads", "pad"}, 89, false},
	{[]string{"synth", "synthesizer", "arp"}, 81, true},
	{[]string{"choir", "voices", "aahs"}, 52, false},
}

// Params are the musical parameters a plan means.
type Params struct {
	Genre    Genre
	BPM      float64
	Root     int // pitch class of the key, 0 = C
	Minor    bool
	Mood     string
	NoDrums  bool
	Sections []SectionParams
}

// SectionParams are one section's role and dynamics.
type SectionParams struct {
	Name     string
	Role     string  // intro, verse, prechorus, chorus, bridge, solo, outro, main
	Energy   float64 // 0.2 … 1
	Drums    bool
	Melody   bool
	Duration int      // ms
	Lines    []string // lyrics to sing on the melody
}

var (
	reBPM = regexp.MustCompile(`(\d{2,3}(?:\.\d+)?)\s*(?:bpm|beats per minute)`)
	reKey = regexp.MustCompile(`(?:^|[^a-z])(?:in\s+|key\s+of\s+)?([a-g])\s*(#|♯|b|♭|\s+sharp|\s+flat)?\s*(major|minor|maj|min)\b`)
	// keyOnly also accepts "key of D" / "in the key of F#".
	reKeyOf = regexp.MustCompile(`key\s+of\s+([a-g])\s*(#|♯|b|♭|\s+sharp|\s+flat)?\b`)
)

var pitchClass = map[string]int{"c": 0, "d": 2, "e": 4, "f": 5, "g": 7, "a": 9, "b": 11}

var noteNames = []string{"C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"}

// KeyName is a key as styles spell it, e.g. "D minor".
func KeyName(root int, minor bool) string {
	if minor {
		return noteNames[root] + " minor"
	}
	return noteNames[root] + " major"
}

func accidental(s string) int {
	switch strings.TrimSpace(s) {
	case "#", "♯", "sharp":
		return 1
	case "b", "♭", "flat":
		return -1
	}
	return 0
}

func lower(styles []string) string { return " " + strings.ToLower(strings.Join(styles, " | ")) + " " }

func hasWord(text, w string) bool {
	i := strings.Index(text, w)
	for i >= 0 {
		before := i == 0 || !isLetter(text[i-1])
		after := i+len(w) >= len(text) || !isLetter(text[i+len(w)])
		if before && after {
			return true
		}
		j := strings.Index(text[i+1:], w)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b == '-' }

func anyWord(text string, words []string) bool {
	for _, w := range words {
		if hasWord(text, w) {
			return true
		}
	}
	return false
}

var (
	minorMoods  = []string{"sad", "dark", "melancholic", "melancholy", "moody", "tense", "mysterious", "somber", "ominous", "haunting", "brooding"}
	majorMoods  = []string{"happy", "bright", "joyful", "uplifting", "cheerful", "sunny", "hopeful", "playful", "triumphant"}
	fastMoods   = []string{"energetic", "upbeat", "fast", "driving", "intense", "aggressive", "frantic"}
	slowMoods   = []string{"calm", "relaxing", "chill", "slow", "peaceful", "gentle", "mellow", "dreamy", "laid-back", "laid back"}
	softWords   = []string{"soft", "quiet", "gentle", "sparse", "calm", "minimal", "stripped", "delicate", "fading", "fade out", "subdued"}
	loudWords   = []string{"loud", "powerful", "big", "intense", "energetic", "full", "anthemic", "building", "climax", "explosive", "heavy"}
	noDrumWords = []string{"no drums", "without drums", "drumless", "no percussion", "without percussion"}
)

// Derive computes the musical parameters of a plan: global styles set genre, tempo, key, mode
// and instruments (negative styles exclude them); each section's name and local styles set its
// role and dynamics. Everything is read from the styles, so an edited plan changes the music.
func Derive(p *Plan) Params {
	pos, neg := lower(p.PositiveGlobalStyles), lower(p.NegativeGlobalStyles)
	g := defaultGenre
	for _, e := range genres {
		if anyWord(pos, e.words) && !anyWord(neg, e.words) {
			g = e.g
			break
		}
	}
	prm := Params{Genre: g, BPM: g.BPM, Minor: g.Minor}
	switch {
	case anyWord(pos, minorMoods):
		prm.Minor, prm.Mood = true, firstWord(pos, minorMoods)
	case anyWord(pos, majorMoods):
		prm.Minor, prm.Mood = false, firstWord(pos, majorMoods)
	}
	if anyWord(pos, fastMoods) {
		prm.BPM *= 1.15
		prm.Mood = strings.TrimSpace(prm.Mood + " " + firstWord(pos, fastMoods))
	} else if anyWord(pos, slowMoods) {
		prm.BPM *= 0.85
		prm.Mood = strings.TrimSpace(prm.Mood + " " + firstWord(pos, slowMoods))
	}
	// The last tempo and key named win: an edit appended to a plan's styles takes effect.
	if m := last(reBPM.FindAllStringSubmatch(pos, -1)); m != nil {
		if v, err := strconv.ParseFloat(m[1], 64); err == nil {
			prm.BPM = v
		}
	}
	prm.BPM = math.Round(min(max(prm.BPM, 40), 240))
	prm.Root = 0
	if g.Minor || prm.Minor {
		prm.Root = 9 // A minor
	}
	if m := last(reKey.FindAllStringSubmatch(pos, -1)); m != nil {
		prm.Root = (pitchClass[m[1]] + accidental(m[2]) + 12) % 12
		prm.Minor = strings.HasPrefix(m[3], "min")
	} else if m := last(reKeyOf.FindAllStringSubmatch(pos, -1)); m != nil {
		prm.Root = (pitchClass[m[1]] + accidental(m[2]) + 12) % 12
	}
	for _, in := range instruments {
		if anyWord(pos, in.words) && !anyWord(neg, in.words) {
			if in.lead {
				prm.Genre.Lead = in.prog
			} else {
				prm.Genre.Chords = in.prog
			}
			break
		}
	}
	prm.NoDrums = g.Drums == "none" || anyWord(pos, noDrumWords) || anyWord(neg, []string{"drums", "percussion", "beat", "beats"})
	for i, s := range p.Sections {
		prm.Sections = append(prm.Sections, deriveSection(i, len(p.Sections), s, prm.NoDrums, g))
	}
	return prm
}

func last(m [][]string) []string {
	if len(m) == 0 {
		return nil
	}
	return m[len(m)-1]
}

func firstWord(text string, words []string) string {
	for _, w := range words {
		if hasWord(text, w) {
			return w
		}
	}
	return ""
}

var roleEnergy = map[string]float64{"intro": 0.45, "verse": 0.62, "prechorus": 0.72, "chorus": 0.9, "bridge": 0.55,
	"solo": 0.8, "outro": 0.42, "main": 0.75, "breakdown": 0.4, "drop": 1}

func role(name string, i, n int) string {
	s := strings.ToLower(name)
	for _, r := range []struct{ word, role string }{{"pre-chorus", "prechorus"}, {"prechorus", "prechorus"}, {"pre chorus", "prechorus"},
		{"intro", "intro"}, {"verse", "verse"}, {"chorus", "chorus"}, {"hook", "chorus"}, {"refrain", "chorus"}, {"drop", "drop"},
		{"bridge", "bridge"}, {"breakdown", "breakdown"}, {"solo", "solo"}, {"instrumental", "solo"}, {"outro", "outro"}, {"ending", "outro"}, {"coda", "outro"}} {
		if strings.Contains(s, r.word) {
			return r.role
		}
	}
	switch {
	case n > 2 && i == 0:
		return "intro"
	case n > 2 && i == n-1:
		return "outro"
	}
	return "main"
}

func deriveSection(i, n int, s Section, noDrums bool, g Genre) SectionParams {
	r := role(s.SectionName, i, n)
	sp := SectionParams{Name: s.SectionName, Role: r, Energy: roleEnergy[r], Duration: s.DurationMs, Melody: r != "intro" && r != "outro" && r != "breakdown"}
	for _, l := range s.Lines {
		if strings.TrimSpace(l) != "" {
			sp.Lines = append(sp.Lines, l)
			sp.Melody = true // lyrics are sung on the melody
		}
	}
	pos, neg := lower(s.PositiveLocalStyles), lower(s.NegativeLocalStyles)
	if anyWord(pos, softWords) {
		sp.Energy -= 0.2
	}
	if anyWord(pos, loudWords) {
		sp.Energy += 0.2
	}
	sp.Energy = min(max(sp.Energy, 0.2), 1)
	sp.Drums = !noDrums && r != "intro" && r != "breakdown" || !noDrums && anyWord(pos, []string{"drums", "beat", "percussion"})
	if anyWord(pos, noDrumWords) || anyWord(neg, []string{"drums", "percussion", "beat"}) {
		sp.Drums = false
	}
	if anyWord(pos, []string{"melody", "lead", "solo", "hook"}) {
		sp.Melody = true
	}
	if anyWord(neg, []string{"melody", "lead"}) {
		sp.Melody = false
	}
	return sp
}

// Validate checks a plan against the API's limits, naming the field (a JSON path below "at",
// e.g. composition_plan) of the first problem.
func Validate(p *Plan) (field []any, msg string) {
	at := func(rest ...any) []any { return rest }
	if len(p.PositiveGlobalStyles) > MaxStyles {
		return at("positive_global_styles"), fmt.Sprintf("At most %d styles.", MaxStyles)
	}
	if len(p.NegativeGlobalStyles) > MaxStyles {
		return at("negative_global_styles"), fmt.Sprintf("At most %d styles.", MaxStyles)
	}
	if f, m := checkStyles("positive_global_styles", p.PositiveGlobalStyles); f != nil {
		return f, m
	}
	if f, m := checkStyles("negative_global_styles", p.NegativeGlobalStyles); f != nil {
		return f, m
	}
	switch {
	case len(p.Sections) == 0:
		return at("sections"), "A plan needs at least one section."
	case len(p.Sections) > MaxSections:
		return at("sections"), fmt.Sprintf("A plan has at most %d sections.", MaxSections)
	}
	for i, s := range p.Sections {
		name := strings.TrimSpace(s.SectionName)
		switch {
		case name == "" || len([]rune(s.SectionName)) > MaxSectionName:
			return at("sections", i, "section_name"), fmt.Sprintf("The section name must be 1 to %d characters.", MaxSectionName)
		case s.DurationMs < MinSectionMs || s.DurationMs > MaxSectionMs:
			return at("sections", i, "duration_ms"), fmt.Sprintf("A section lasts %d to %d ms.", MinSectionMs, MaxSectionMs)
		case len(s.PositiveLocalStyles) > MaxStyles:
			return at("sections", i, "positive_local_styles"), fmt.Sprintf("At most %d styles.", MaxStyles)
		case len(s.NegativeLocalStyles) > MaxStyles:
			return at("sections", i, "negative_local_styles"), fmt.Sprintf("At most %d styles.", MaxStyles)
		case len(s.Lines) > MaxLines:
			return at("sections", i, "lines"), fmt.Sprintf("A section has at most %d lines.", MaxLines)
		}
		for j, l := range s.Lines {
			if len([]rune(l)) > MaxLineChars {
				return at("sections", i, "lines", j), fmt.Sprintf("A line has at most %d characters.", MaxLineChars)
			}
		}
		if f, m := checkStyles("positive_local_styles", s.PositiveLocalStyles); f != nil {
			return append(at("sections", i), f...), m
		}
		if f, m := checkStyles("negative_local_styles", s.NegativeLocalStyles); f != nil {
			return append(at("sections", i), f...), m
		}
	}
	if d := p.DurationMs(); d < MinLengthMs || d > MaxLengthMs {
		return at("sections"), fmt.Sprintf("The sections last %d ms in all; a song lasts %d to %d ms.", d, MinLengthMs, MaxLengthMs)
	}
	return nil, ""
}

func checkStyles(name string, styles []string) ([]any, string) {
	for i, s := range styles {
		if len([]rune(s)) > maxStyleChars {
			return []any{name, i}, fmt.Sprintf("A style has at most %d characters.", maxStyleChars)
		}
	}
	return nil, ""
}
