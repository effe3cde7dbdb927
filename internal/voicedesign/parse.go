// Package voicedesign turns a description of a voice ("a deep, raspy elderly man with a Scottish
// accent, speaking slowly") into a parametric voice of the embedded engines: a base voice with the
// accent, spoken at a pitch, pace, pitch range and vocal-tract (formant) scale the description's
// words call for. Previews vary within the description's ranges, repeatably for a seed; remixing
// moves an existing voice's parameters the same way. No neural voice designer runs here: designed
// voices are parametric, and the product says so.
package voicedesign

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Traits are what a description says about a voice. Zero values mean "not said".
type Traits struct {
	Gender string // "male", "female"
	Age    string // "child", "young", "middle_aged", "old"
	Accent string // "american", "british", "scottish", … (see accents)
	// PitchFactor multiplies the voice's mean pitch (deep < 1 < high-pitched); 1 when not said.
	PitchFactor float64
	// PaceFactor multiplies the speaking rate (slow < 1 < fast); 1 when not said.
	PaceFactor float64
	// FormantShift is added to the formant scale (darker < 0 < brighter).
	FormantShift float64
	// RangeShift is added to the pitch range (0–100): monotone < 0 < expressive.
	RangeShift float64
	// Textures and Moods are the words recognised, for labels ("raspy", "calm").
	Textures, Moods []string
}

// Said reports whether the description named the voice's identity (gender, age or accent), which
// makes a remix pick a new base voice rather than adjust the current one.
func (t Traits) Said() bool { return t.Gender != "" || t.Age != "" || t.Accent != "" }

// effect is what one word does to the parameters.
type effect struct {
	pitch, pace         float64 // factors (0 = no change)
	formant, rng        float64 // shifts
	texture, mood       string  // label
	espeakVariant       string  // an espeak-ng variant that carries the texture
	espeakVariantF      string  // its female form ("" = the same)
	pitchWord, paceWord bool    // a pitch or pace word: only the first (longest) one counts
}

var (
	maleWords   = []string{"man", "men", "male", "boy", "guy", "gentleman", "he", "his", "him", "father", "dad", "grandfather", "grandpa", "king", "prince", "husband", "son", "brother", "uncle", "sir", "lad", "masculine", "baritone", "bass", "tenor", "wizard"}
	femaleWords = []string{"woman", "women", "female", "girl", "lady", "she", "her", "mother", "mom", "mum", "grandmother", "grandma", "queen", "princess", "wife", "daughter", "sister", "aunt", "madam", "lass", "feminine", "soprano", "alto", "witch"}

	childWords  = []string{"child", "kid", "kids", "children", "toddler", "boy", "girl", "little boy", "little girl", "schoolboy", "schoolgirl", "childlike", "child like", "baby"}
	youngWords  = []string{"young", "youthful", "teen", "teens", "teenager", "teenage", "twenties", "adolescent", "college", "student", "younger"}
	middleWords = []string{"middle aged", "middle age", "mature", "thirties", "forties", "fifties", "adult"}
	oldWords    = []string{"old", "elderly", "aged", "senior", "grandfather", "grandmother", "grandpa", "grandma", "ancient", "sixties", "seventies", "eighties", "retired", "wise old", "old man", "old woman", "older"}

	// accents maps a word to an accent label.
	accentWords = map[string]string{
		"american": "american", "us": "american", "usa": "american", "u s": "american", "midwestern": "american", "californian": "american", "texan": "american", "new york": "american",
		"british": "british", "english": "british", "england": "british", "london": "british", "uk": "british", "londoner": "british",
		"posh": "rp", "received pronunciation": "rp", "rp": "rp", "aristocratic": "rp", "oxford": "rp", "queen s english": "rp",
		"scottish": "scottish", "scots": "scottish", "scot": "scottish", "scotland": "scottish", "glasgow": "scottish", "edinburgh": "scottish", "highland": "scottish",
		"caribbean": "caribbean", "jamaican": "caribbean", "west indian": "caribbean", "trinidadian": "caribbean",
		"lancashire": "lancashire", "northern english": "lancashire", "lancastrian": "lancashire", "manchester": "lancashire", "mancunian": "lancashire",
		"west midlands": "midlands", "midlands": "midlands", "birmingham": "midlands", "brummie": "midlands",
	}

	effects = map[string]effect{
		// pitch
		"deep":         {pitch: 0.8, formant: -0.04, pitchWord: true},
		"low":          {pitch: 0.85, pitchWord: true},
		"low pitched":  {pitch: 0.82, pitchWord: true},
		"very deep":    {pitch: 0.7, formant: -0.06, pitchWord: true},
		"booming":      {pitch: 0.82, formant: -0.05, rng: 5, texture: "booming", pitchWord: true},
		"gravelly":     {pitch: 0.92, formant: -0.04, rng: -10, texture: "raspy", espeakVariant: "croak"},
		"high":         {pitch: 1.2, formant: 0.03, pitchWord: true},
		"high pitched": {pitch: 1.22, formant: 0.03, pitchWord: true},
		"very high":    {pitch: 1.32, formant: 0.04, pitchWord: true},
		"squeaky":      {pitch: 1.25, formant: 0.06, texture: "squeaky", pitchWord: true},
		"shrill":       {pitch: 1.22, formant: 0.05, texture: "shrill", pitchWord: true},
		"bright":       {formant: 0.05, texture: "bright"},
		"crisp":        {formant: 0.04, texture: "crisp"},
		"clear":        {formant: 0.02, texture: "clear"},
		"thin":         {pitch: 1.08, formant: 0.05, texture: "thin"},
		"nasal":        {formant: 0.03, texture: "nasal"},
		"warm":         {formant: -0.03, rng: -3, texture: "warm"},
		"rich":         {formant: -0.03, texture: "rich"},
		"mellow":       {formant: -0.03, rng: -8, texture: "mellow"},
		"velvety":      {formant: -0.03, rng: -5, texture: "velvety"},
		"smooth":       {formant: -0.02, rng: -5, texture: "smooth"},
		"dark":         {formant: -0.05, pitch: 0.95, texture: "dark"},
		"resonant":     {formant: -0.05, pitch: 0.93, texture: "resonant"},
		"breathy":      {formant: 0.02, rng: -8, texture: "breathy", espeakVariant: "whisper", espeakVariantF: "whisperf"},
		"airy":         {formant: 0.02, rng: -5, texture: "breathy"},
		"soft":         {formant: 0.01, rng: -10, texture: "soft"},
		"whispery":     {formant: 0.02, rng: -12, texture: "whispery", espeakVariant: "whisper", espeakVariantF: "whisperf"},
		"whispering":   {formant: 0.02, rng: -12, texture: "whispery", espeakVariant: "whisper", espeakVariantF: "whisperf"},
		"raspy":        {formant: -0.04, pitch: 0.95, rng: -10, texture: "raspy", espeakVariant: "croak"},
		"hoarse":       {formant: -0.04, pitch: 0.95, rng: -10, texture: "raspy", espeakVariant: "croak"},
		"croaky":       {formant: -0.04, pitch: 0.94, rng: -10, texture: "raspy", espeakVariant: "croak"},
		"rough":        {formant: -0.03, rng: -8, texture: "rough", espeakVariant: "croak"},
		"husky":        {formant: -0.05, pitch: 0.94, rng: -5, texture: "husky"},
		"smoky":        {formant: -0.05, pitch: 0.94, rng: -5, texture: "husky"},
		"robotic":      {rng: -40, texture: "robotic"},
		"monotone":     {rng: -40, mood: "monotone"},
		"flat":         {rng: -30, mood: "flat"},
		// comparatives (remixing: "deeper", "a bit faster")
		"deeper":   {pitch: 0.88, formant: -0.02, pitchWord: true},
		"lower":    {pitch: 0.9, pitchWord: true},
		"higher":   {pitch: 1.12, formant: 0.02, pitchWord: true},
		"brighter": {formant: 0.04, texture: "bright"},
		"darker":   {formant: -0.04, texture: "dark"},
		"warmer":   {formant: -0.03, texture: "warm"},
		"slower":   {pace: 0.88, paceWord: true},
		"faster":   {pace: 1.12, paceWord: true},
		"calmer":   {pace: 0.95, rng: -10, mood: "calm"},
		// pace
		"slow":         {pace: 0.85, paceWord: true},
		"slowly":       {pace: 0.85, paceWord: true},
		"very slow":    {pace: 0.7, paceWord: true},
		"very slowly":  {pace: 0.7, paceWord: true},
		"measured":     {pace: 0.88, paceWord: true},
		"deliberate":   {pace: 0.88, paceWord: true},
		"leisurely":    {pace: 0.85, paceWord: true},
		"drawling":     {pace: 0.82, paceWord: true},
		"fast":         {pace: 1.2, paceWord: true},
		"quick":        {pace: 1.18, paceWord: true},
		"quickly":      {pace: 1.18, paceWord: true},
		"rapid":        {pace: 1.25, paceWord: true},
		"rapidly":      {pace: 1.25, paceWord: true},
		"brisk":        {pace: 1.15, paceWord: true},
		"hurried":      {pace: 1.2, paceWord: true},
		"very fast":    {pace: 1.32, paceWord: true},
		"fast paced":   {pace: 1.2, paceWord: true},
		"fast talking": {pace: 1.25, paceWord: true},
		// mood
		"calm":          {pace: 0.95, rng: -15, mood: "calm"},
		"relaxed":       {pace: 0.93, rng: -12, mood: "relaxed"},
		"soothing":      {pace: 0.9, rng: -15, formant: -0.01, mood: "soothing"},
		"gentle":        {pace: 0.93, rng: -10, mood: "gentle"},
		"serene":        {pace: 0.9, rng: -15, mood: "calm"},
		"excited":       {pace: 1.08, rng: 25, pitch: 1.05, mood: "excited"},
		"energetic":     {pace: 1.08, rng: 22, pitch: 1.04, mood: "energetic"},
		"enthusiastic":  {pace: 1.06, rng: 22, pitch: 1.04, mood: "enthusiastic"},
		"cheerful":      {pace: 1.05, rng: 18, pitch: 1.04, mood: "cheerful"},
		"upbeat":        {pace: 1.06, rng: 18, pitch: 1.03, mood: "upbeat"},
		"lively":        {pace: 1.06, rng: 20, mood: "lively"},
		"bubbly":        {pace: 1.08, rng: 22, pitch: 1.06, mood: "bubbly"},
		"happy":         {pace: 1.04, rng: 15, pitch: 1.03, mood: "happy"},
		"playful":       {pace: 1.04, rng: 18, pitch: 1.03, mood: "playful"},
		"sad":           {pace: 0.88, rng: -20, pitch: 0.95, mood: "sad"},
		"melancholic":   {pace: 0.87, rng: -20, pitch: 0.95, mood: "sad"},
		"melancholy":    {pace: 0.87, rng: -20, pitch: 0.95, mood: "sad"},
		"somber":        {pace: 0.88, rng: -18, pitch: 0.95, mood: "sad"},
		"sombre":        {pace: 0.88, rng: -18, pitch: 0.95, mood: "sad"},
		"tired":         {pace: 0.86, rng: -20, pitch: 0.96, mood: "tired"},
		"gloomy":        {pace: 0.88, rng: -18, pitch: 0.95, mood: "sad"},
		"angry":         {pace: 1.05, rng: 15, mood: "angry"},
		"intense":       {pace: 1.03, rng: 12, mood: "intense"},
		"stern":         {pace: 0.97, rng: -8, pitch: 0.97, mood: "stern"},
		"authoritative": {pace: 0.97, rng: -5, pitch: 0.96, mood: "authoritative"},
		"confident":     {rng: 3, mood: "confident"},
		"commanding":    {pace: 0.97, rng: -3, pitch: 0.95, mood: "authoritative"},
		"nervous":       {pace: 1.1, rng: 10, pitch: 1.04, mood: "nervous"},
		"anxious":       {pace: 1.1, rng: 10, pitch: 1.04, mood: "nervous"},
		"mysterious":    {pace: 0.92, rng: -5, pitch: 0.95, mood: "mysterious"},
		"sinister":      {pace: 0.9, rng: -5, pitch: 0.92, formant: -0.03, mood: "sinister"},
		"expressive":    {rng: 25, mood: "expressive"},
		"animated":      {rng: 25, pace: 1.04, mood: "animated"},
		"dramatic":      {rng: 25, pace: 0.96, mood: "dramatic"},
		"friendly":      {rng: 8, pitch: 1.02, mood: "friendly"},
		"sarcastic":     {rng: 15, mood: "sarcastic"},
	}
)

var yearsOld = regexp.MustCompile(`\b(\d{1,3}) (?:year|yr)s? old\b|\bin (?:his|her|their) (\d0)s\b`)

// normalize lowercases the description and keeps words and numbers separated by single spaces,
// with a space at each end so " word " matches whole words.
func normalize(desc string) string {
	var b strings.Builder
	b.WriteByte(' ')
	space := true
	for _, r := range strings.ToLower(desc) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r > 127 {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// find returns the earliest position of any of the words in s, or -1.
func find(s string, words ...string) int {
	best := -1
	for _, w := range words {
		if i := strings.Index(s, " "+w+" "); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}

// Parse reads a description's gender, age, accent, pitch, pace, texture and mood words.
func Parse(desc string) Traits {
	s := normalize(desc)
	// Phrases that contain a trait word but mean something else.
	for _, drop := range []string{"old fashioned", "old school", "high quality", "low quality", "clear audio", "deep learning"} {
		s = strings.ReplaceAll(s, " "+drop+" ", " ")
	}
	t := Traits{PitchFactor: 1, PaceFactor: 1}

	m, f := find(s, maleWords...), find(s, femaleWords...)
	switch {
	case m >= 0 && (f < 0 || m < f):
		t.Gender = "male"
	case f >= 0:
		t.Gender = "female"
	}

	if g := yearsOld.FindStringSubmatch(s); g != nil {
		n, _ := strconv.Atoi(g[1] + g[2])
		switch {
		case n < 13:
			t.Age = "child"
		case n < 30:
			t.Age = "young"
		case n < 58:
			t.Age = "middle_aged"
		default:
			t.Age = "old"
		}
	} else {
		switch {
		case find(s, childWords...) >= 0:
			t.Age = "child"
		case find(s, middleWords...) >= 0: // before old: "middle aged" holds "aged"
			t.Age = "middle_aged"
		case find(s, oldWords...) >= 0:
			t.Age = "old"
		case find(s, youngWords...) >= 0:
			t.Age = "young"
		}
	}

	// The accent named first (longest phrases are tried too: "west midlands" before "midlands").
	bestPos := -1
	for w, a := range accentWords {
		if i := find(s, w); i >= 0 && (bestPos < 0 || i < bestPos || (i == bestPos && len(a) > len(t.Accent))) {
			bestPos, t.Accent = i, a
		}
	}

	// Word effects, in a fixed order; a phrase ("very deep") replaces its shorter word ("deep").
	keys := make([]string, 0, len(effects))
	for k := range effects {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) > len(keys[j])
		}
		return keys[i] < keys[j]
	})
	used := s
	pitchSet, paceSet := false, false
	for _, k := range keys {
		if !strings.Contains(used, " "+k+" ") {
			continue
		}
		e := effects[k]
		used = strings.ReplaceAll(used, " "+k+" ", " ") // a phrase's words are not counted again
		if e.pitch != 0 && !(e.pitchWord && pitchSet) {
			t.PitchFactor *= e.pitch
			pitchSet = pitchSet || e.pitchWord
		}
		if e.pace != 0 && !(e.paceWord && paceSet) {
			t.PaceFactor *= e.pace
			paceSet = paceSet || e.paceWord
		}
		t.FormantShift += e.formant
		t.RangeShift += e.rng
		if e.texture != "" && !slices.Contains(t.Textures, e.texture) {
			t.Textures = append(t.Textures, e.texture)
		}
		if e.mood != "" && !slices.Contains(t.Moods, e.mood) {
			t.Moods = append(t.Moods, e.mood)
		}
	}
	return t
}

// espeakVariant is the espeak-ng variant a texture asks for ("" = none).
func (t Traits) espeakVariant(female bool) string {
	for _, k := range t.Textures {
		for _, e := range effects {
			if e.texture == k && e.espeakVariant != "" {
				if female && e.espeakVariantF != "" {
					return e.espeakVariantF
				}
				return e.espeakVariant
			}
		}
	}
	return ""
}
