package music

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
)

// MIDI channels of the arrangement (channel 9 is General MIDI's drum kit).
const (
	leadChannel  = 0
	chordChannel = 1
	bassChannel  = 2
	padChannel   = 3
	drumChannel  = 9
)

type evKind uint8

const (
	evOff evKind = iota // offs sort before ons at the same instant: a repeated note restarts
	evOn
)

// event is one MIDI note event at a sample position.
type event struct {
	at   int
	kind evKind
	ch   int
	key  int
	vel  int
}

// Score is a composed song: its parameters, its note events in sample time, and where each
// section starts and ends (samples).
type Score struct {
	Params   Params
	Total    int   // samples
	Bounds   []int // section boundaries: Bounds[i]..Bounds[i+1] is section i
	events   []event
	programs map[int]int
	sung     []sungWord // the lyrics on the melody (see Singer)
	// Singer sings the lyrics; without one they are not rendered.
	Singer *Singer
}

// scale degrees (semitones above the root) of the modes.
var (
	majorScale = []int{0, 2, 4, 5, 7, 9, 11}
	minorScale = []int{0, 2, 3, 5, 7, 8, 10}
)

// progressions by genre family and mode, as scale degrees (0 = I). Verses, choruses and bridges
// use different ones so that sections are heard as different.
type progSet struct{ verse, chorus, bridge []int }

func progressions(g Genre, minor bool) progSet {
	switch {
	case g.Name == "blues":
		return progSet{[]int{0, 0, 0, 0, 3, 3, 0, 0, 4, 3, 0, 4}, []int{0, 0, 0, 0, 3, 3, 0, 0, 4, 3, 0, 4}, []int{3, 3, 0, 0}}
	case g.Name == "jazz" || g.Name == "lo-fi":
		if minor {
			return progSet{[]int{1, 4, 0, 0}, []int{0, 5, 1, 4}, []int{3, 6, 2, 5}}
		}
		return progSet{[]int{1, 4, 0, 5}, []int{0, 5, 1, 4}, []int{3, 6, 2, 5}}
	case minor:
		return progSet{[]int{0, 5, 2, 6}, []int{5, 2, 6, 0}, []int{3, 0, 4, 4}}
	case g.Name == "rock" || g.Name == "folk" || g.Name == "reggae":
		return progSet{[]int{0, 3, 4, 3}, []int{0, 4, 5, 3}, []int{5, 3, 0, 4}}
	case g.Name == "classical" || g.Name == "cinematic":
		return progSet{[]int{0, 3, 4, 0}, []int{0, 5, 3, 4}, []int{5, 1, 4, 4}}
	}
	return progSet{[]int{0, 4, 5, 3}, []int{5, 3, 0, 4}, []int{3, 4, 2, 5}}
}

func (s progSet) forRole(role string) []int {
	switch role {
	case "chorus", "drop", "solo":
		return s.chorus
	case "bridge", "breakdown":
		return s.bridge
	}
	return s.verse
}

// Compose arranges a plan's parameters into a score of totalMs, reproducibly for a seed.
func Compose(prm Params, seed uint64) *Score {
	sc := &Score{Params: prm, programs: map[int]int{leadChannel: prm.Genre.Lead, chordChannel: prm.Genre.Chords,
		bassChannel: prm.Genre.Bass, padChannel: prm.Genre.Pad, drumChannel: drumKit(prm.Genre)}}
	start := 0
	sc.Bounds = []int{0}
	for _, s := range prm.Sections {
		start += msToSamples(s.Duration)
		sc.Bounds = append(sc.Bounds, start)
	}
	sc.Total = start
	beat := 60.0 / prm.BPM * SampleRate // samples per beat
	scale := majorScale
	if prm.Minor {
		scale = minorScale
	}
	progs := progressions(prm.Genre, prm.Minor)
	// Bars run continuously across sections, so the beat grid (and the measured tempo) is one.
	for i, s := range prm.Sections {
		from, to := sc.Bounds[i], sc.Bounds[i+1]
		// The same role with the same seed gets the same motif: choruses recur.
		rng := rand.New(rand.NewPCG(seed, hash(s.Role)))
		prog := progs.forRole(s.Role)
		firstBar := int(math.Ceil(float64(from)/(4*beat) - 1e-9))
		// A section starting mid-bar begins at its next bar line; the rest of the bar keeps the
		// previous section's chord ringing (already scheduled by it).
		motif := makeMotif(rng, prm.Genre, s.Energy)
		var lyrics *lyricQueue
		if len(s.Lines) > 0 {
			lyrics = newLyricQueue(s.Lines)
		}
		for bar := firstBar; ; bar++ {
			bs := int(float64(bar) * 4 * beat)
			if bs >= to {
				break
			}
			be := min(int(float64(bar+1)*4*beat), to)
			idx := (bar - firstBar) % len(prog)
			deg := prog[idx]
			sc.chords(prm, scale, deg, bs, be, beat, s, bar-firstBar)
			sc.bass(prm, scale, deg, prog[(idx+1)%len(prog)], bs, be, beat, s, rng)
			if s.Drums {
				sc.drums(prm.Genre, bs, be, beat, s, bar-firstBar, rng)
			}
			if s.Melody {
				sc.melody(prm, scale, deg, motif, bs, be, beat, s, bar-firstBar, lyrics)
			}
		}
	}
	sort.SliceStable(sc.events, func(a, b int) bool {
		ea, eb := sc.events[a], sc.events[b]
		if ea.at != eb.at {
			return ea.at < eb.at
		}
		return ea.kind < eb.kind
	})
	return sc
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func msToSamples(ms int) int { return int(math.Round(float64(ms) * SampleRate / 1000)) }

func drumKit(g Genre) int {
	switch g.Drums {
	case "four":
		return 25 // TR-808-like electronic kit
	case "swing", "shuffle":
		return 32 // jazz kit
	case "epic":
		return 48 // orchestral
	}
	return 0
}

func (sc *Score) note(ch, key, vel, on, off int) {
	if off <= on || key < 0 || key > 127 {
		return
	}
	vel = min(max(vel, 1), 127)
	sc.events = append(sc.events, event{at: on, kind: evOn, ch: ch, key: key, vel: vel}, event{at: off, kind: evOff, ch: ch, key: key})
}

func vel(base float64, energy float64) int { return int(base * (0.45 + 0.55*energy)) }

// chordTones are the MIDI keys of the chord on scale degree deg, around middle C.
func chordTones(prm Params, scale []int, deg int, sevenths bool) []int {
	n := 3
	if sevenths {
		n = 4
	}
	var keys []int
	for k := 0; k < n; k++ {
		d := deg + 2*k
		key := 60 + prm.Root + scale[d%7] + 12*(d/7)
		if prm.Root > 5 {
			key -= 12
		}
		keys = append(keys, key)
	}
	return keys
}

func (sc *Score) chords(prm Params, scale []int, deg, bs, be int, beat float64, s SectionParams, barIdx int) {
	keys := chordTones(prm, scale, deg, prm.Genre.Sevenths)
	v := vel(80, s.Energy)
	b := int(beat)
	switch prm.Genre.Comp {
	case "pad":
		for _, k := range keys {
			sc.note(chordChannel, k, v, bs, be)
		}
	case "arp":
		pat := []int{0, 1, 2, 1, 0, 1, 2, 1}
		step := b / 2
		for i := 0; bs+i*step < be; i++ {
			k := keys[pat[i%len(pat)]%len(keys)]
			if i%8 == 0 {
				sc.note(chordChannel, keys[0]-12, v, bs+i*step, min(bs+(i+4)*step, be))
			}
			sc.note(chordChannel, k+12*((i/4)%2), v-10, bs+i*step, min(bs+(i+1)*step, be))
		}
	case "comp":
		// Jazz/blues comping: short chords on 2 and the "and" of 3, varied by bar.
		hits := [][2]float64{{1, 0.6}, {2.5, 0.4}}
		if barIdx%2 == 1 {
			hits = [][2]float64{{0, 0.8}, {1.5, 0.4}, {3, 0.6}}
		}
		for _, h := range hits {
			on := bs + int(swung(h[0], prm.Genre.Swing)*beat)
			for _, k := range keys {
				sc.note(chordChannel, k, v, on, min(on+int(h[1]*beat), be))
			}
		}
	case "stab":
		for q := 0; q < 4; q++ {
			on := bs + int(swung(float64(q)+0.5, prm.Genre.Swing)*beat)
			for _, k := range keys {
				sc.note(chordChannel, k, v-5, on, min(on+b/3, be))
			}
		}
	default: // strum: eighths, accented on the beat
		for e := 0; e < 8; e++ {
			on := bs + int(swung(float64(e)/2, prm.Genre.Swing)*beat)
			acc := 0
			if e%2 == 0 {
				acc = 12
			}
			for j, k := range keys {
				sc.note(chordChannel, k, v-12+acc, on+j*90, min(on+b/2, be))
			}
		}
	}
	// A sustained pad under loud sections fills the mix.
	if s.Energy >= 0.8 && prm.Genre.Comp != "pad" {
		for _, k := range keys[:3] {
			sc.note(padChannel, k, vel(55, s.Energy), bs, be)
		}
	}
}

// swung moves off-beat eighths later by the genre's swing.
func swung(beats float64, swing float64) float64 {
	if frac := beats - math.Floor(beats); math.Abs(frac-0.5) < 1e-9 {
		return beats + swing*0.5
	}
	return beats
}

func (sc *Score) bass(prm Params, scale []int, deg, next, bs, be int, beat float64, s SectionParams, rng *rand.Rand) {
	root := 36 + prm.Root + scale[deg%7]
	if root > 47 {
		root -= 12
	}
	v := vel(95, s.Energy)
	b := int(beat)
	switch prm.Genre.Drums {
	case "swing", "shuffle":
		// Walking bass: chord tones, then an approach to the next chord's root.
		tones := chordTones(prm, scale, deg, true)
		nextRoot := 36 + prm.Root + scale[next%7]
		if nextRoot > 47 {
			nextRoot -= 12
		}
		line := []int{root, tones[1] - 24, tones[2] - 24, nextRoot + []int{-1, 1, 2}[rng.IntN(3)]}
		for q := 0; q < 4; q++ {
			for line[q] < 28 {
				line[q] += 12
			}
			sc.note(bassChannel, line[q], v, bs+q*b, min(bs+(q+1)*b-b/8, be))
		}
	case "four":
		for e := 0; e < 8; e++ {
			if e%2 == 1 {
				sc.note(bassChannel, root, v, bs+e*b/2, min(bs+(e+1)*b/2-b/16, be))
			}
		}
	case "rock":
		for e := 0; e < 8; e++ {
			sc.note(bassChannel, root, v-8+8*(1-e%2), bs+e*b/2, min(bs+(e+1)*b/2-b/16, be))
		}
	case "none":
		sc.note(bassChannel, root, v-10, bs, be)
	default:
		sc.note(bassChannel, root, v, bs, min(bs+int(1.5*beat), be))
		sc.note(bassChannel, root, v-10, bs+int(swung(1.5, prm.Genre.Swing)*beat), min(bs+2*b, be))
		sc.note(bassChannel, root+7, v-5, bs+2*b, min(bs+3*b, be))
		sc.note(bassChannel, root, v-10, bs+3*b, min(bs+4*b-b/8, be))
	}
}

// motif is a two-bar melody: onsets in beats, their lengths, and chord-relative pitches
// (steps in the scale above the chord root; chord tones on strong beats).
type motif struct {
	on, dur []float64
	step    []int
}

func makeMotif(rng *rand.Rand, g Genre, energy float64) motif {
	rhythms := [][]float64{
		{0, 1, 1.5, 2, 3, 4, 5, 6},
		{0, 0.5, 1, 2, 2.5, 3, 4, 6},
		{0, 1.5, 2, 3, 4, 4.5, 5, 5.5, 6},
		{0, 2, 3, 4, 5.5, 6},
		{0.5, 1, 1.5, 2.5, 3, 4.5, 5, 6},
	}
	if energy < 0.6 {
		rhythms = rhythms[3:4]
	}
	r := rhythms[rng.IntN(len(rhythms))]
	m := motif{on: r}
	pos := rng.IntN(3) * 2 // start on a chord tone
	for i, on := range r {
		end := 8.0
		if i+1 < len(r) {
			end = r[i+1]
		}
		m.dur = append(m.dur, math.Min(end-on, 2)*0.92)
		if math.Mod(on, 1) == 0 && int(on)%2 == 0 {
			pos = []int{0, 2, 4}[rng.IntN(3)]
		} else {
			pos += []int{-1, 1, 1, 2, -2}[rng.IntN(5)]
			pos = min(max(pos, -2), 7)
		}
		m.step = append(m.step, pos)
	}
	return m
}

func (sc *Score) melody(prm Params, scale []int, deg int, m motif, bs, be int, beat float64, s SectionParams, barIdx int, lyrics *lyricQueue) {
	half := barIdx % 2 // which bar of the two-bar motif
	base := 72 + prm.Root
	if prm.Root > 5 {
		base -= 12
	}
	v := vel(100, s.Energy)
	for i, on := range m.on {
		if on < float64(4*half) || on >= float64(4*half+4) {
			continue
		}
		local := on - float64(4*half)
		start := bs + int(swung(local, prm.Genre.Swing)*beat)
		end := min(start+int(m.dur[i]*beat), be)
		d := deg + m.step[i]
		oct := 0
		for d < 0 {
			d += 7
			oct--
		}
		key := base + scale[d%7] + 12*(d/7+oct)
		// Every fourth bar answers the phrase an octave-step lower, so it does not loop verbatim.
		if barIdx%4 >= 2 {
			key -= []int{0, 2, 3, 5}[barIdx%4]
			key = snap(key, prm.Root, scale)
		}
		if !lyrics.take(sc, key, start, end) {
			sc.note(leadChannel, key, v, start, end)
		}
	}
}

// snap moves a key down onto the scale.
func snap(key, root int, scale []int) int {
	for i := 0; i < 2; i++ {
		pc := ((key-root)%12 + 12) % 12
		for _, d := range scale {
			if d == pc {
				return key
			}
		}
		key--
	}
	return key
}

// General MIDI drum keys.
const (
	kick    = 36
	snare   = 38
	clap    = 39
	hatC    = 42
	hatO    = 46
	ride    = 51
	crash   = 49
	tomLow  = 45
	rimshot = 37
)

func (sc *Score) drums(g Genre, bs, be int, beat float64, s SectionParams, barIdx int, rng *rand.Rand) {
	e := s.Energy
	hit := func(key int, beats float64, v float64) {
		on := bs + int(swung(beats, g.Swing)*beat)
		if on < be {
			sc.note(drumChannel, key, vel(v, e), on, min(on+int(beat/4), be))
		}
	}
	if barIdx == 0 && e >= 0.7 {
		hit(crash, 0, 100)
	}
	switch g.Drums {
	case "four":
		for q := 0; q < 4; q++ {
			hit(kick, float64(q), 115)
			hit(hatO, float64(q)+0.5, 75)
		}
		hit(clap, 1, 95)
		hit(clap, 3, 95)
	case "swing", "shuffle":
		for q := 0; q < 4; q++ {
			hit(ride, float64(q), 85)
			if q%2 == 1 {
				hit(ride, float64(q)+0.5, 70)
				hit(hatC, float64(q), 75)
			}
			hit(kick, float64(q), 60)
		}
		if g.Drums == "shuffle" {
			hit(snare, 1, 95)
			hit(snare, 3, 95)
		}
	case "boombap":
		for e8 := 0; e8 < 8; e8++ {
			hit(hatC, float64(e8)/2, 70-float64(e8%2)*15)
		}
		hit(kick, 0, 115)
		hit(kick, 1.5, 95)
		hit(kick, 2.5, 100)
		hit(snare, 1, 105)
		hit(snare, 3, 105)
	case "reggae":
		for e8 := 0; e8 < 8; e8++ {
			hit(hatC, float64(e8)/2, 65)
		}
		hit(kick, 2, 115)
		hit(rimshot, 2, 100)
	case "epic":
		hit(kick, 0, 115)
		hit(tomLow, 1.5, 100)
		hit(kick, 2, 110)
		hit(snare, 3, 95)
	case "funk":
		for s16 := 0; s16 < 16; s16++ {
			hit(hatC, float64(s16)/4, 60+float64(1-s16%2)*15)
		}
		hit(kick, 0, 115)
		hit(kick, 0.75, 90)
		hit(kick, 2.5, 105)
		hit(snare, 1, 110)
		hit(snare, 3, 110)
		hit(snare, 3.75, 60)
	default: // rock, pop
		for e8 := 0; e8 < 8; e8++ {
			k := hatC
			if e >= 0.85 && g.Drums == "rock" {
				k = ride
			}
			hit(k, float64(e8)/2, 75-float64(e8%2)*15)
		}
		hit(kick, 0, 118)
		hit(kick, 2, 110)
		if g.Drums == "rock" || rng.IntN(2) == 0 {
			hit(kick, 2.5, 95)
		}
		hit(snare, 1, 110)
		hit(snare, 3, 110)
	}
}
