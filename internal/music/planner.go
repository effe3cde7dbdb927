package music

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

var (
	reSeconds = regexp.MustCompile(`(\d{1,3})\s*(?:-\s*)?(?:s|sec|secs|second|seconds)\b`)
	reMinutes = regexp.MustCompile(`(\d{1,2})\s*(?:-\s*)?(?:min|mins|minute|minutes)\b`)
	reNegated = regexp.MustCompile(`\b(?:no|without|avoid|not)\s+([a-z][a-z -]{1,30}?)(?:[,.;]|\band\b|$)`)
)

// LengthFromPrompt is the length a prompt asks for ("a 45 second jingle", "2 minutes"), or 0.
func LengthFromPrompt(prompt string) int {
	s := strings.ToLower(prompt)
	if m := reMinutes.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return min(max(n*60000, MinLengthMs), MaxLengthMs)
	}
	if m := reSeconds.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return min(max(n*1000, MinLengthMs), MaxLengthMs)
	}
	return 0
}

// PlanFromPrompt writes a composition plan for a prompt: the styles the composer understands
// (genre, mood, tempo, key, instruments) as global styles, what the prompt excludes as negative
// styles, and a song form (intro, verses, choruses, bridge, outro) whose sections fill lengthMs
// (0: the length the prompt names, else 30 s) in whole bars. The plan is instrumental.
func PlanFromPrompt(prompt string, lengthMs int) *Plan {
	text := " " + strings.ToLower(prompt) + " "
	if lengthMs == 0 {
		lengthMs = LengthFromPrompt(prompt)
	}
	if lengthMs == 0 {
		lengthMs = DefaultLengthMs
	}
	var neg []string
	for _, m := range reNegated.FindAllStringSubmatch(text, -1) {
		neg = append(neg, strings.TrimSpace(m[1]))
	}
	negText := lower(neg)
	// What the prompt asks for, read the way Derive will read it back.
	probe := &Plan{PositiveGlobalStyles: []string{prompt}, NegativeGlobalStyles: neg}
	prm := Derive(probe)
	pos := []string{prm.Genre.Name}
	if prm.Mood != "" {
		pos = append(pos, strings.Fields(prm.Mood)...)
	}
	pos = append(pos, KeyName(prm.Root, prm.Minor), fmt.Sprintf("%.0f bpm", prm.BPM))
	named := ""
	for _, in := range instruments {
		for _, w := range in.words {
			// "piano" is not named again when "electric piano" was.
			if hasWord(text, w) && !hasWord(negText, w) && !hasWord(named, w) {
				pos = append(pos, w)
				named += " " + w + " "
				break
			}
		}
	}
	if prm.NoDrums && prm.Genre.Drums != "none" {
		pos = append(pos, "no drums")
	}
	pos = append(pos, "instrumental")
	p := &Plan{PositiveGlobalStyles: dedupe(pos), NegativeGlobalStyles: dedupe(append(neg, "vocals"))}
	p.Sections = form(lengthMs, prm.BPM)
	p.Normalize()
	return p
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, v := range s {
		if v = strings.TrimSpace(v); v != "" && !seen[v] && len(out) < MaxStyles {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

type formPart struct {
	name   string
	weight float64
	styles []string
}

var forms = [][]formPart{
	{{"Main", 1, []string{"steady groove"}}},
	{{"Verse", 1, []string{"building"}}, {"Chorus", 1, []string{"full", "catchy melody"}}},
	{{"Intro", 0.6, []string{"soft"}}, {"Chorus", 1, []string{"full", "catchy melody"}}, {"Outro", 0.6, []string{"fading"}}},
	{{"Intro", 0.5, []string{"soft"}}, {"Verse", 1, []string{"steady groove"}}, {"Chorus", 1, []string{"full", "catchy melody"}}, {"Outro", 0.5, []string{"fading"}}},
	{{"Intro", 0.5, []string{"soft"}}, {"Verse", 1, []string{"steady groove"}}, {"Chorus", 1, []string{"full", "catchy melody"}}, {"Bridge", 0.75, []string{"sparse", "contrast"}}, {"Outro", 0.5, []string{"fading"}}},
	{{"Intro", 0.5, []string{"soft"}}, {"Verse 1", 1, []string{"steady groove"}}, {"Chorus 1", 1, []string{"full", "catchy melody"}}, {"Verse 2", 1, []string{"steady groove"}}, {"Chorus 2", 1, []string{"full", "catchy melody"}}, {"Outro", 0.5, []string{"fading"}}},
	{{"Intro", 0.5, []string{"soft"}}, {"Verse 1", 1, []string{"steady groove"}}, {"Chorus 1", 1, []string{"full", "catchy melody"}}, {"Verse 2", 1, []string{"steady groove"}}, {"Bridge", 0.75, []string{"sparse", "contrast"}}, {"Chorus 2", 1, []string{"full", "energetic", "catchy melody"}}, {"Outro", 0.5, []string{"fading"}}},
	{{"Intro", 0.5, []string{"soft"}}, {"Verse 1", 1, []string{"steady groove"}}, {"Chorus 1", 1, []string{"full", "catchy melody"}}, {"Verse 2", 1, []string{"steady groove"}}, {"Chorus 2", 1, []string{"full", "catchy melody"}}, {"Bridge", 0.75, []string{"sparse", "contrast"}}, {"Chorus 3", 1, []string{"full", "energetic", "catchy melody"}}, {"Outro", 0.5, []string{"fading"}}},
}

// form lays out sections over lengthMs: as many as keep each at least ~7 s (and every one within
// the API's 3–120 s), sized by weight and rounded to whole bars; the last takes the remainder.
func form(lengthMs int, bpm float64) []Section {
	k := min(max(lengthMs/7000, 1), len(forms))
	for k < len(forms) && lengthMs/k > MaxSectionMs*3/4 {
		k++
	}
	parts := forms[k-1]
	total := 0.0
	for _, p := range parts {
		total += p.weight
	}
	bar := 4 * 60000 / bpm
	out := make([]Section, len(parts))
	used := 0
	for i, p := range parts {
		d := lengthMs - used
		if i < len(parts)-1 {
			want := float64(lengthMs) * p.weight / total
			if bars := math.Round(want / bar); bars >= minBarsForSections {
				want = bars * bar
			}
			d = int(math.Round(want))
			rest := len(parts) - 1 - i
			d = min(max(d, MinSectionMs), lengthMs-used-rest*MinSectionMs, MaxSectionMs)
		}
		out[i] = Section{SectionName: p.name, PositiveLocalStyles: append([]string(nil), p.styles...), DurationMs: d}
		used += d
	}
	return out
}
