package music

import (
	"encoding/json"
	"testing"
)

// TestParsePlanChunks: a music_v2 plan (chunks) becomes sections: the [name] heading, the lines
// without their {directions}, the styles; the first chunk's styles lead the song.
func TestParsePlanChunks(t *testing.T) {
	raw := json.RawMessage(`{"chunks":[{"duration_ms":15000,"positive_styles":["pop","warm synths"],"text":"[Verse]\nCity lights are fading\n{very loud}We keep moving"},{"duration_ms":5000,"positive_styles":["soft"],"text":"[Instrumental Outro]"}]}`)
	p, err := parsePlan(raw, "composition_plan")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sections) != 2 || p.Sections[0].SectionName != "Verse" || p.Sections[1].SectionName != "Instrumental Outro" ||
		len(p.Sections[0].Lines) != 2 || p.Sections[0].Lines[1] != "We keep moving" || p.PositiveGlobalStyles[0] != "pop" || p.DurationMs() != 20000 {
		t.Fatalf("plan %+v", p)
	}
	if _, err := parsePlan(json.RawMessage(`{"sections":[]}`), "composition_plan"); err == nil {
		t.Fatal("a plan without its required keys was accepted")
	}
}

func TestRescale(t *testing.T) {
	p := PlanFromPrompt("rock", 30000)
	rescale(p, 60000)
	if p.DurationMs() != 60000 {
		t.Fatalf("rescaled to %d ms", p.DurationMs())
	}
}
