package dialogue

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strings"

	"timbre/internal/engine"
)

// TagSounds renders the non-speech audio tags ([laughs], [sighs], [applause], …) as audio at
// sampleRate, deterministic under seed; false when it has no sound for the tag.
// internal/sfx's RenderTag has this signature.
type TagSounds interface {
	RenderTag(name string, sampleRate int, seed uint64) ([]float32, bool)
}

// tagPattern is one bracketed audio tag: a short run of text in square brackets.
var tagPattern = regexp.MustCompile(`\[([^\[\]\n]{1,40})\]`)

type tagKind int

const (
	tagIgnored tagKind = iota // unknown to the engines: dropped silently
	tagPause                  // silence of tag.seconds
	tagWhisper                // the rest of the line whispered
	tagEmotion                // the rest of the line with tag.mood's prosody
	tagSound                  // a non-speech sound (TagSounds), else tag.seconds of silence
)

type tag struct {
	name    string // lower case, spaces collapsed
	kind    tagKind
	seconds float64
	mood    mood
}

// mood is how an emotional tag changes the engine's prosody.
type mood struct {
	rate       float64 // factor
	pitch      int     // added to Prosody.Pitch (0–100)
	pitchRange int     // added to Prosody.PitchRange (0–100)
}

var pauses = map[string]float64{"pause": 0.5, "short pause": 0.25, "long pause": 1.0}

var whispers = map[string]bool{"whispers": true, "whispering": true, "whisper": true, "whispered": true, "quietly": true}

var moods = map[string]mood{
	"excited": {1.12, 8, 25}, "happy": {1.06, 6, 20}, "cheerful": {1.06, 6, 20}, "cheerfully": {1.06, 6, 20},
	"laughing": {1.05, 6, 20}, "surprised": {1.05, 10, 25}, "curious": {1, 5, 15}, "amazed": {1.04, 8, 25},
	"angry": {1.08, 3, 30}, "shouting": {1.08, 8, 30}, "frustrated": {1.05, 2, 20}, "nervous": {1.12, 4, 10},
	"sad": {0.86, -8, -25}, "sorrowful": {0.86, -8, -25}, "crying": {0.85, -4, -15}, "tired": {0.88, -6, -20},
	"calm": {0.92, -2, -15}, "serious": {0.95, -4, -10}, "sarcastic": {0.94, 0, 15}, "mischievously": {0.98, 3, 15},
}

// soundSeconds is the silence a non-speech tag leaves when no TagSounds renders it.
var sounds = map[string]float64{
	"laughs": 0.6, "laugh": 0.6, "laughs harder": 0.8, "chuckles": 0.4, "giggles": 0.5, "starts laughing": 0.6,
	"breathes": 0.4, "breath": 0.4, "inhales": 0.4, "exhales": 0.4, "inhales deeply": 0.6, "exhales sharply": 0.4,
	"sighs": 0.5, "sigh": 0.5, "coughs": 0.4, "cough": 0.4, "clears throat": 0.5, "gasps": 0.3, "sniffs": 0.3,
	"applause": 1.2, "clapping": 1.2, "gulps": 0.3, "snorts": 0.3,
}

func classify(raw string) tag {
	name := strings.ToLower(strings.Join(strings.Fields(raw), " "))
	t := tag{name: name}
	switch {
	case pauses[name] > 0:
		t.kind, t.seconds = tagPause, pauses[name]
	case whispers[name]:
		t.kind = tagWhisper
	case sounds[name] > 0:
		t.kind, t.seconds = tagSound, sounds[name]
	default:
		if m, ok := moods[name]; ok {
			t.kind, t.mood = tagEmotion, m
		}
	}
	return t
}

// piece is a stretch of a line's text: a tag, or the text between tags.
type piece struct {
	from, to int // bytes of the line's text
	isTag    bool
	tag      tag
}

// split cuts a line's text into its tags and the text between them (every byte in one piece).
func split(text string) []piece {
	var out []piece
	at := 0
	for _, m := range tagPattern.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > at {
			out = append(out, piece{from: at, to: m[0]})
		}
		out = append(out, piece{from: m[0], to: m[1], isTag: true, tag: classify(text[m[2]:m[3]])})
		at = m[1]
	}
	if at < len(text) {
		out = append(out, piece{from: at, to: len(text)})
	}
	return out
}

// speakable reports whether a stretch of text has anything an engine would say.
func speakable(s string) bool {
	for _, r := range s {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f && !isSpaceOrPunct(r) {
			return true
		}
	}
	return false
}

func isSpaceOrPunct(r rune) bool {
	return strings.ContainsRune(" \u00a0\u2000\u2001\u2002\u2003\u2009\u200b\u3000—–…“”‘’«»¿¡、。，！？", r)
}

// apply is the prosody with a mood's changes, kept within the engines' ranges.
func (m mood) apply(p engine.Prosody) engine.Prosody {
	if m.rate > 0 {
		p.Rate *= m.rate
	}
	p.Pitch = min(max(p.Pitch+m.pitch, 0), 100)
	p.PitchRange = min(max(p.PitchRange+m.pitchRange, 0), 100)
	return p
}

// whisperVoice is the espeak-ng voice with its whisper variant ("en-us+f2" → "en-us+whisperf"),
// espeak-ng's own whispered delivery; ok is false for other engines.
func whisperVoice(engineName, voice string) (string, bool) {
	if engineName != "espeak" {
		return "", false
	}
	base, variant, _ := strings.Cut(voice, "+")
	if strings.HasPrefix(strings.ToLower(variant), "f") {
		return base + "+whisperf", true
	}
	return base + "+whisper", true
}

// whisperize turns voiced speech into a whisper for engines without a whispered voice: the
// voicing is mostly replaced by noise shaped by the speech's own high-passed envelope, and the
// whole is quieter. Deterministic under seed.
func whisperize(pcm []int16, rate int, seed uint64) {
	if len(pcm) == 0 || rate <= 0 {
		return
	}
	rng := rand.New(rand.NewPCG(seed, 0x77686973706572))
	// One-pole high-pass at ~400 Hz: removes most of the voicing's fundamental.
	a := math.Exp(-2 * math.Pi * 400 / float64(rate))
	// Envelope follower: ~5 ms attack, ~30 ms release.
	att := math.Exp(-1 / (0.005 * float64(rate)))
	rel := math.Exp(-1 / (0.030 * float64(rate)))
	var prevX, prevY, env, noiseLP float64
	b := math.Exp(-2 * math.Pi * 5000 / float64(rate)) // soften the noise's top
	for i, s := range pcm {
		x := float64(s)
		y := a * (prevY + x - prevX)
		prevX, prevY = x, y
		mag := math.Abs(y)
		if mag > env {
			env = att*env + (1-att)*mag
		} else {
			env = rel*env + (1-rel)*mag
		}
		noiseLP = b*noiseLP + (1-b)*(rng.Float64()*2-1)
		v := 0.22*y + 1.6*env*noiseLP
		pcm[i] = int16(max(min(v, 32767), -32768))
	}
}

// silence is n seconds of zero samples at rate.
func silence(seconds float64, rate int) []int16 {
	return make([]int16, int(math.Round(seconds*float64(rate))))
}

// floatPCM converts TagSounds' float samples (−1…1) to 16-bit PCM.
func floatPCM(f []float32) []int16 {
	out := make([]int16, len(f))
	for i, v := range f {
		out[i] = int16(max(min(float64(v)*32767, 32767), -32768))
	}
	return out
}
