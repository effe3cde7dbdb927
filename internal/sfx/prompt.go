package sfx

import (
	"strings"
	"unicode"
)

// word is what a prompt word means: a recipe (weak ones give way to another recipe of the same
// family in the same clause: "door" to "creak"), or a character change.
type word struct {
	recipe string
	weak   bool
	mod    func(c *Char)
	room   float64 // reverb time (s) the word asks for
	// surface for footsteps
	surface string
}

var lexicon = map[string]word{}

func syn(recipe string, words ...string) {
	for _, w := range words {
		lexicon[w] = word{recipe: recipe}
	}
}

func weak(recipe string, words ...string) {
	for _, w := range words {
		lexicon[w] = word{recipe: recipe, weak: true}
	}
}

func mod(fn func(c *Char), words ...string) {
	for _, w := range words {
		lexicon[w] = word{mod: fn}
	}
}

func room(rt60 float64, words ...string) {
	for _, w := range words {
		lexicon[w] = word{room: rt60}
	}
}

func surface(s string, words ...string) {
	for _, w := range words {
		lexicon[w] = word{surface: s}
	}
}

func init() {
	syn("rain", "rain", "rainfall", "downpour", "drizzle", "raindrops", "storm", "rainstorm", "shower")
	syn("wind", "wind", "gust", "gusts", "breeze", "howling", "blizzard", "gale")
	syn("stream", "stream", "brook", "river", "creek", "babbling", "flowing", "fountain", "waterfall", "faucet", "tap")
	weak("stream", "water")
	syn("waves", "waves", "wave", "ocean", "sea", "surf", "shore", "beach", "tide")
	syn("drip", "drip", "dripping", "drop", "droplet", "leak")
	syn("splash", "splash", "splashing", "plunge", "dive")
	syn("bubbles", "bubble", "bubbles", "bubbling", "boiling", "underwater", "gurgle")
	syn("fire", "fire", "campfire", "fireplace", "crackling", "crackle", "flames", "flame", "bonfire", "burning")
	syn("thunder", "thunder", "thunderclap", "thunderstorm", "lightning", "rumble")
	syn("footsteps", "footsteps", "footstep", "steps", "walking", "walk", "running", "run", "stomp", "boots", "heels", "shoes")
	syn("door_creak", "creak", "creaky", "creaking", "squeak", "squeaky", "hinge", "hinges", "opening", "open", "opens")
	syn("door_slam", "slam", "slams", "slamming", "shut", "shuts", "close", "closes", "closing")
	syn("door_knock", "knock", "knocks", "knocking", "rap", "tap-tap")
	weak("door_slam", "door", "gate")
	syn("impact", "impact", "thud", "thump", "hit", "crash", "smash", "bang", "fall", "falls", "drop-impact", "boom")
	syn("punch", "punch", "kick", "slap", "smack", "fight")
	syn("metal_clang", "clang", "clank", "anvil", "pipe", "pan", "gong", "ding-metal")
	syn("glass_break", "shatter", "shattering", "shatters", "breaking", "break", "breaks", "smashed")
	weak("glass_break", "glass", "window", "bottle")
	syn("explosion", "explosion", "explode", "explodes", "blast", "detonation", "bomb", "grenade", "kaboom")
	syn("gunshot", "gunshot", "gun", "shot", "gunfire", "pistol", "rifle", "cannon")
	syn("engine", "engine", "motor", "idle", "idling", "revving", "rev", "motorcycle", "truck", "tractor", "generator")
	syn("car_pass", "passing", "passes", "drive-by", "traffic", "highway", "road")
	weak("car_pass", "car", "vehicle", "bus")
	syn("car_horn", "horn", "honk", "honking", "beeping-car")
	syn("train", "train", "railway", "locomotive", "subway", "tram")
	syn("airplane", "airplane", "plane", "jet", "aircraft", "flyover")
	syn("helicopter", "helicopter", "chopper", "rotor")
	syn("machine", "machine", "machinery", "factory", "industrial", "conveyor", "printer", "washing")
	syn("hum", "hum", "humming", "buzz", "buzzing", "electric", "electrical", "transformer", "neon", "fridge")
	syn("clock", "clock", "tick", "ticking", "tock", "watch")
	syn("typing", "typing", "keyboard", "typewriter", "keys", "keystrokes")
	syn("static", "static", "radio", "crackling-radio", "interference", "noise", "hiss", "tv")
	syn("whoosh", "whoosh", "swoosh", "woosh", "swoop", "fly", "flying", "rush", "transition", "pass-by")
	syn("swish", "swish", "swipe", "swing", "sword", "whip", "slash", "swoosh-short")
	syn("beep", "beep", "beeps", "bleep", "ui", "button", "interface", "menu", "error", "confirm")
	syn("click", "click", "clicks", "clicking", "switch", "tick-ui", "mouse", "toggle", "snap")
	syn("chime", "chime", "chimes", "ding", "notification", "alert", "message", "doorbell", "success")
	syn("coin", "coin", "coins", "pickup", "collect", "retro", "arcade", "8-bit", "game")
	syn("power_up", "powerup", "power-up", "charge", "charging", "rise", "rising", "startup")
	syn("power_down", "powerdown", "power-down", "shutdown", "fail", "failure", "falling")
	syn("laser", "laser", "zap", "blaster", "phaser", "sci-fi", "scifi", "beam")
	syn("alarm", "alarm", "alarms", "buzzer", "wake")
	syn("siren", "siren", "sirens", "police", "ambulance", "firetruck", "emergency", "wail")
	syn("whistle", "whistle", "whistling", "referee", "kettle", "steam")
	syn("bell", "bell", "bells", "church", "tolling", "toll", "ringing", "ring", "cathedral-bell")
	syn("crowd", "crowd", "crowds", "people", "chatter", "murmur", "talking", "restaurant", "cafe", "party", "market", "audience", "voices", "bustling", "busy")
	syn("room_tone", "ambience", "ambient", "ambiance", "silence", "quiet-room", "tone", "atmosphere", "empty")
	syn("heartbeat", "heartbeat", "heart", "heartbeats", "pulse", "beating")
	syn("laugh", "laugh", "laughs", "laughing", "laughter", "giggle", "chuckle")
	syn("breath", "breath", "breathing", "breathe", "inhale", "exhale", "panting", "gasp")
	syn("sigh", "sigh", "sighs", "sighing")
	syn("cough", "cough", "coughs", "coughing")
	syn("applause", "applause", "clapping", "clap", "claps", "cheering", "cheer", "ovation")
	syn("birdsong", "birdsong", "bird", "birds", "chirp", "chirping", "tweet", "songbird", "sparrow", "robin", "forest", "dawn")
	syn("crickets", "cricket", "crickets", "insects", "cicada", "cicadas", "night")
	syn("dog_bark", "dog", "dogs", "bark", "barking", "barks", "woof", "puppy")
	syn("cat_meow", "cat", "cats", "meow", "meowing", "kitten", "purr")
	syn("owl", "owl", "hoot", "hooting")
	syn("frog", "frog", "frogs", "croak", "croaking", "toad", "pond", "swamp")
	syn("crow", "crow", "crows", "caw", "raven")

	mod(func(c *Char) { c.Weight, c.Pitch = clamp01(c.Weight+0.35), c.Pitch*0.85 }, "heavy", "thick", "intense", "strong", "violent", "torrential", "powerful", "hard")
	mod(func(c *Char) { c.Weight = clamp01(c.Weight - 0.35) }, "light", "gentle", "soft", "faint", "delicate", "calm", "mild", "weak", "subtle")
	mod(func(c *Char) { c.Distance = 0.75 }, "distant", "far", "faraway", "far-off", "remote", "background", "afar")
	mod(func(c *Char) { c.Distance = 0 }, "close", "nearby", "near", "closeup", "close-up", "foreground", "intimate")
	mod(func(c *Char) { c.Metallic = 1 }, "metallic", "metal", "steel", "iron", "tin", "brass", "clanging")
	mod(func(c *Char) { c.Wet = 1 }, "wet", "soggy", "sloppy", "splashy", "muddy")
	mod(func(c *Char) { c.Pitch *= 0.6 }, "low", "deep", "bass", "rumbling", "booming", "dark", "giant")
	mod(func(c *Char) { c.Pitch *= 1.6 }, "high", "shrill", "high-pitched", "piercing", "tiny", "sharp", "thin")
	mod(func(c *Char) { c.Speed *= 1.6 }, "fast", "quick", "rapid", "hurried", "frantic", "racing")
	mod(func(c *Char) { c.Speed *= 0.6 }, "slow", "slowly", "lazy", "leisurely", "creeping")
	mod(func(c *Char) { c.Weight, c.Pitch = clamp01(c.Weight+0.3), c.Pitch*0.8 }, "loud", "big", "huge", "massive", "large", "enormous", "epic")
	mod(func(c *Char) { c.Weight, c.Pitch = clamp01(c.Weight-0.2), c.Pitch*1.3 }, "small", "little", "mini")
	mod(func(c *Char) { c.Bright *= 0.35 }, "muffled", "muted", "dull", "through")
	mod(func(c *Char) { c.Bright *= 1.4 }, "bright", "crisp", "clear")
	mod(func(c *Char) { c.Length *= 1.6 }, "long", "lingering", "sustained", "prolonged")
	mod(func(c *Char) { c.Length *= 0.6 }, "short", "brief")
	room(2.5, "echo", "echoing", "echoes", "reverberant", "reverb", "cathedral", "hall", "cave", "tunnel", "canyon", "warehouse", "castle", "abandoned", "eerie", "dungeon")
	room(0.5, "room", "indoor", "indoors", "inside", "house", "kitchen", "office", "corridor", "hallway", "wooden-room")
	surface("wood", "wood", "wooden", "floorboards", "floor", "stairs", "deck", "planks")
	surface("gravel", "gravel", "pebbles", "dirt", "path", "rocks")
	surface("snow", "snow", "snowy", "ice")
	surface("grass", "grass", "leaves", "leafy", "forest-floor")
	surface("concrete", "concrete", "pavement", "stone", "street", "sidewalk", "marble", "asphalt")
	surface("sand", "sand", "sandy")
	surface("tile", "tile", "tiles", "tiled")
	surface("water", "puddle", "puddles", "mud")
	surface("metal", "grate", "catwalk")
}

func clamp01(x float64) float64 { return min(1, max(0, x)) }

// categories are broader words that map to a scene of several recipes when no source word is
// found (the category fallback).
var categories = map[string][]string{
	"nature":       {"birdsong", "wind"},
	"jungle":       {"birdsong", "crickets"},
	"city":         {"car_pass", "crowd"},
	"urban":        {"car_pass", "crowd"},
	"town":         {"crowd", "car_pass"},
	"space":        {"hum", "laser"},
	"spaceship":    {"hum", "machine"},
	"robot":        {"machine", "beep"},
	"horror":       {"wind", "door_creak"},
	"scary":        {"wind", "door_creak"},
	"war":          {"explosion", "gunshot"},
	"battle":       {"explosion", "swish"},
	"farm":         {"crow", "dog_bark"},
	"hospital":     {"beep", "room_tone"},
	"library":      {"room_tone", "clock"},
	"workshop":     {"machine", "metal_clang"},
	"magic":        {"chime", "whoosh"},
	"spell":        {"chime", "whoosh"},
	"cartoon":      {"whoosh", "coin"},
	"sport":        {"whistle", "crowd"},
	"stadium":      {"crowd", "applause"},
	"concert":      {"applause", "crowd"},
	"weather":      {"rain", "wind"},
	"camping":      {"fire", "crickets"},
	"construction": {"machine", "impact"},
	"airport":      {"airplane", "crowd"},
	"station":      {"train", "crowd"},
}

// stopWords carry no sound.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the of in on at to into onto from by for with and or as is are
		was be being it its this that some very sound sounds effect effects sfx noise noises like
		over under while during then after before followed finally next later afterwards
		one two three four several many few lot lots s up down out off again`) {
		stopWords[w] = true
	}
}

// Source is one layer of a scene.
type Source struct {
	Recipe string
	Char   Char
	Group  int // position in the time line (0 first)
	weak   bool
}

// Scene is a parsed prompt: its sources, the room they sound in and how many sequential
// groups the time line has.
type Scene struct {
	Sources  []Source
	Groups   int
	RoomRT   float64 // reverb time in seconds (0: dry outdoors)
	Fallback bool    // true when no word named a recipe and the scene was guessed
}

// Recipes lists the scene's recipes once each, in time-line order.
func (s *Scene) Recipes() []string {
	var out []string
	seen := map[string]bool{}
	for _, src := range s.Sources {
		if !seen[src.Recipe] {
			seen[src.Recipe] = true
			out = append(out, src.Recipe)
		}
	}
	return out
}

// tokenize lowercases and splits the prompt into words and sequence marks ("." ";" and the
// words then/after/before/followed/finally/next/later).
func tokenize(text string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '\'':
			if r != '\'' {
				b.WriteRune(r)
			}
		case r == '.' || r == ';' || r == '!' || r == '?':
			flush()
			out = append(out, ".")
		default:
			flush()
		}
	}
	flush()
	return out
}

// stems are the forms tried for an unknown word before fuzzy matching.
func stems(w string) []string {
	out := []string{w}
	for _, suf := range []string{"ing", "es", "s", "ed", "ly", "y"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			base := w[:len(w)-len(suf)]
			out = append(out, base, base+"e")
			if n := len(base); n >= 2 && base[n-1] == base[n-2] { // "slamming" → "slam"
				out = append(out, base[:n-1])
			}
		}
	}
	return out
}

// lookup resolves a word: exactly, by stem, then by edit distance (1 for short words, 2 for long
// ones) against the lexicon. fuzzy says whether it was a near match.
func lookup(w string) (word, bool, bool) {
	for _, s := range stems(w) {
		if x, ok := lexicon[s]; ok {
			return x, true, s != w && s+"s" != w
		}
	}
	if len(w) < 5 { // "busy" is not "bus"
		return word{}, false, false
	}
	limit := 1
	if len(w) >= 7 {
		limit = 2
	}
	best, bestD := "", limit+1
	for k := range lexicon {
		d := editDistance(w, k, limit+1)
		if d <= limit && (d < bestD || d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	if best != "" && bestD <= limit {
		return lexicon[best], true, true
	}
	return word{}, false, false
}

// editDistance is Levenshtein's distance, giving up (returning limit) once it must exceed it.
func editDistance(a, b string, limit int) int {
	if abs(len(a)-len(b)) >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Parse turns a prompt into a scene. Clauses joined by "then", "followed by", "finally", "next",
// "later" or a full stop follow one another; "X after Y" puts Y first, "X before Y" X first;
// anything else in a clause ("rain and wind", "with", "while") sounds together. Character words
// go to the nearest source of their clause (the next one, else the last one).
func Parse(text string) *Scene {
	toks := tokenize(text)
	// Split into clauses with their order.
	type clause struct{ words []string }
	var seq []clause
	cur := clause{}
	var pendingAfter []clause // clauses that the current one comes after ("X after Y": Y first)
	flush := func() {
		if len(cur.words) > 0 {
			seq = append(seq, cur)
		}
		cur = clause{}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t {
		case ".", "then", "finally", "next", "later", "afterwards", "followed", "subsequently":
			flush()
		case "before":
			flush()
		case "after":
			// "X after Y": X's clause goes after Y's. Collect Y (to the next break) first.
			if len(cur.words) > 0 {
				x := cur
				cur = clause{}
				j := i + 1
				for ; j < len(toks) && toks[j] != "." && toks[j] != "then"; j++ {
					cur.words = append(cur.words, toks[j])
				}
				flush()
				pendingAfter = append(pendingAfter, x)
				seq = append(seq, pendingAfter...)
				pendingAfter = nil
				i = j - 1
			} else {
				flush()
			}
		default:
			cur.words = append(cur.words, t)
		}
	}
	flush()

	sc := &Scene{}
	for _, cl := range seq {
		var srcs []Source
		var pending []func(*Char)
		surf := ""
		for _, w := range cl.words {
			if stopWords[w] {
				continue
			}
			x, ok, _ := lookup(w)
			if !ok {
				continue
			}
			switch {
			case x.recipe != "":
				s := Source{Recipe: x.recipe, Char: defaultChar(), weak: x.weak}
				for _, m := range pending {
					m(&s.Char)
				}
				pending = nil
				srcs = append(srcs, s)
			case x.mod != nil:
				pending = append(pending, x.mod)
			case x.room > 0:
				sc.RoomRT = max(sc.RoomRT, x.room)
			case x.surface != "":
				surf = x.surface
			}
		}
		if len(pending) > 0 && len(srcs) > 0 {
			for _, m := range pending {
				m(&srcs[len(srcs)-1].Char)
			}
		}
		srcs = dropWeak(srcs)
		if len(srcs) == 0 {
			// A clause of only surfaces ("on gravel") still means footsteps; else nothing.
			if surf != "" {
				srcs = []Source{{Recipe: "footsteps", Char: defaultChar()}}
			} else {
				continue
			}
		}
		g := sc.Groups
		for i := range srcs {
			srcs[i].Group = g
			if surf != "" {
				srcs[i].Char.Surface = surf
				if surf == "metal" {
					srcs[i].Char.Metallic = max(srcs[i].Char.Metallic, 0.5)
				}
			}
			if srcs[i].Char.Metallic > 0 && srcs[i].Recipe == "footsteps" && srcs[i].Char.Surface == "" {
				srcs[i].Char.Surface = "metal"
			}
		}
		sc.Sources = append(sc.Sources, srcs...)
		sc.Groups++
	}
	if len(sc.Sources) == 0 {
		sc.Fallback = true
		sc.Sources = fallback(toks)
		sc.Groups = 1
	}
	return sc
}

// dropWeak removes weak sources ("door") when a clause has a stronger one of the same family
// ("creak"), and duplicates of the same recipe (keeping the first, with the most character).
func dropWeak(srcs []Source) []Source {
	var out []Source
	for i, s := range srcs {
		if s.weak {
			fam := recipes[s.Recipe].family
			stronger := false
			for j, o := range srcs {
				if j != i && !o.weak && recipes[o.Recipe].family == fam {
					stronger = true
					// The weak word's character words belong to the stronger source.
					if o.Char == defaultChar() {
						srcs[j].Char = s.Char
					}
				}
			}
			if stronger {
				continue
			}
		}
		dup := false
		for _, o := range out {
			if o.Recipe == s.Recipe {
				dup = true
			}
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}

// fallback guesses a scene for a prompt without any known source word: by category word, else
// a soft room tone with a whoosh (a neutral transition sound).
func fallback(toks []string) []Source {
	for _, t := range toks {
		for _, s := range stems(t) {
			if rs, ok := categories[s]; ok {
				out := make([]Source, len(rs))
				for i, r := range rs {
					out[i] = Source{Recipe: r, Char: defaultChar()}
				}
				return out
			}
		}
	}
	return []Source{{Recipe: "room_tone", Char: defaultChar()}, {Recipe: "whoosh", Char: defaultChar()}}
}
