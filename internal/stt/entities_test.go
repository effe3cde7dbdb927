package stt

import (
	"encoding/json"
	"strings"
	"testing"

	"timbre/internal/engine"
)

// spokenCard is what the recogniser gives for a sentence with a card number read out.
func spokenCard() *engine.Transcript {
	words := strings.Fields("my card number is four one one one one one one one one one one one one one one one thanks john")
	tr := &engine.Transcript{Text: strings.Join(words, " "), Language: "en", LanguageProbability: 1, Duration: 8}
	for i, w := range words {
		tr.Words = append(tr.Words, engine.TranscriptWord{Text: w, Start: 0.3 * float64(i), End: 0.3*float64(i) + 0.25, Logprob: -0.1 * float64(i%3)})
	}
	return tr
}

func TestEntitiesDetected(t *testing.T) {
	r := &Request{Granularity: "word", EntityDetection: []string{"credit_card", "name"}}
	tr := Build(spokenCard(), r, Heard{})
	applyEntities(tr, r)
	if tr.Entities == nil || len(*tr.Entities) != 2 {
		t.Fatalf("entities %+v", tr.Entities)
	}
	text := []rune(tr.Text)
	for _, e := range *tr.Entities {
		if string(text[e.StartChar:e.EndChar]) != e.Text {
			t.Fatalf("%+v does not match the text %q", e, tr.Text)
		}
	}
	if e := (*tr.Entities)[0]; e.Type != "credit_card" || e.Text != "four one one one one one one one one one one one one one one one" {
		t.Fatalf("card %+v", e)
	}
	// The JSON has the API's DetectedEntity keys; an empty finding is [], not absent.
	data, _ := json.Marshal(tr)
	if !strings.Contains(string(data), `"entities":[{"text":"four one`) || !strings.Contains(string(data), `"entity_type":"credit_card","start_char":18,"end_char":82`) {
		t.Fatalf("json %s", data)
	}
	none := &Request{Granularity: "word", EntityDetection: []string{"ssn"}}
	tr = Build(spokenCard(), none, Heard{})
	applyEntities(tr, none)
	if data, _ := json.Marshal(tr); !strings.Contains(string(data), `"entities":[]`) {
		t.Fatalf("json %s", data)
	}
	plain := Build(spokenCard(), &Request{Granularity: "word"}, Heard{})
	applyEntities(plain, &Request{})
	if data, _ := json.Marshal(plain); strings.Contains(string(data), "entities") {
		t.Fatalf("entities without entity_detection: %s", data)
	}
}

func TestEntitiesRedacted(t *testing.T) {
	for mode, want := range map[string]string{
		"enumerated_entity_type": "My card number is {CREDIT_CARD_0} thanks {NAME_0}.",
		"entity_type":            "My card number is {CREDIT_CARD} thanks {NAME}.",
		"redacted":               "My card number is {REDACTED} thanks {REDACTED}.",
	} {
		r := &Request{Granularity: "character", EntityDetection: []string{"credit_card", "name"}, EntityRedaction: []string{"credit_card", "name"}, RedactionMode: mode}
		tr := Build(spokenCard(), r, Heard{})
		applyEntities(tr, r)
		if tr.Text != want || tr.Entities != nil {
			t.Fatalf("%s: %q, entities %v", mode, tr.Text, tr.Entities)
		}
		var joined strings.Builder
		var card *Word
		for i, w := range tr.Words {
			joined.WriteString(w.Text)
			if strings.HasPrefix(w.Text, "{CREDIT_CARD") || w.Text == "{REDACTED}" && card == nil {
				card = &tr.Words[i]
			}
		}
		if joined.String() != tr.Text {
			t.Fatalf("%s: words %q differ from the text", mode, joined.String())
		}
		// The marker spans the card's sixteen words: from the first one's start to the last one's end.
		if card == nil || *card.Start != 1.2 || *card.End != round3(0.3*19+0.25) || card.Type != "word" || len(card.Characters) != len(card.Text) {
			t.Fatalf("%s: card word %+v", mode, card)
		}
		if n := len(tr.Words); n != 2*7-1 {
			t.Fatalf("%s: %d entries", mode, n)
		}
	}
	// Only the redacted types are replaced.
	r := &Request{Granularity: "word", EntityDetection: []string{"credit_card", "name"}, EntityRedaction: []string{"credit_card"}, RedactionMode: "entity_type"}
	tr := Build(spokenCard(), r, Heard{})
	applyEntities(tr, r)
	if tr.Text != "My card number is {CREDIT_CARD} thanks john." {
		t.Fatalf("%q", tr.Text)
	}
}

func TestEntitySurcharge(t *testing.T) {
	for _, c := range []struct {
		base    int64
		detect  bool
		redact  bool
		surplus int64
	}{
		{100, false, false, 0}, {100, true, false, 30}, {100, true, true, 60}, {7, true, false, 3}, {7, true, true, 6}, {1, true, false, 1},
	} {
		r := &Request{}
		if c.detect {
			r.EntityDetection = []string{"ssn"}
		}
		if c.redact {
			r.EntityRedaction = []string{"ssn"}
		}
		if got := entitySurcharge(c.base, r); got != c.surplus {
			t.Errorf("base %d detect %v redact %v: surcharge %d, want %d", c.base, c.detect, c.redact, got, c.surplus)
		}
	}
}

// The web view's single transcript keeps the entities: a multichannel transcript's combined
// text carries each channel's entities to their new place, and an edit finds them again.
func TestEntitiesFollowCombineAndEdit(t *testing.T) {
	r := &Request{Granularity: "word", EntityDetection: []string{"credit_card", "name"}}
	a := Build(spokenCard(), r, Heard{})
	applyEntities(a, r)
	// The other channel speaks before and between: "okay" at 0.1 s, "yes" at 3.05 s (inside the card number).
	b := Build(&engine.Transcript{Text: "okay yes", Language: "en", LanguageProbability: 1, Duration: 8, Words: []engine.TranscriptWord{
		{Text: "okay", Start: 0.1, End: 0.2}, {Text: "yes", Start: 3.05, End: 3.1}}}, r, Heard{})
	applyEntities(b, r)
	markChannel(a, 0)
	markChannel(b, 1)
	c := Combine([]Transcript{*a, *b})
	if c.Entities == nil {
		t.Fatal("combined transcript lost its entities")
	}
	text := []rune(c.Text)
	var types []string
	for _, e := range *c.Entities {
		if string(text[e.StartChar:e.EndChar]) != e.Text {
			t.Fatalf("%+v does not match %q", e, c.Text)
		}
		types = append(types, e.Type)
	}
	// The card number was cut by the other channel's "yes": only the name is still in one piece.
	if strings.Join(types, ",") != "name" {
		t.Fatalf("entities %+v in %q", *c.Entities, c.Text)
	}
	if plain := Combine([]Transcript{*Build(spokenCard(), &Request{Granularity: "word"}, Heard{})}); plain.Entities != nil {
		t.Fatalf("entities without entity_detection: %+v", plain.Entities)
	}

	edited := ApplyText(a, strings.Replace(a.Text, "My card number is", "The number was", 1))
	if edited.Entities == nil || len(*edited.Entities) != 2 {
		t.Fatalf("edited entities %+v", edited.Entities)
	}
	text = []rune(edited.Text)
	for _, e := range *edited.Entities {
		if string(text[e.StartChar:e.EndChar]) != e.Text {
			t.Fatalf("%+v does not match %q", e, edited.Text)
		}
	}
	gone := ApplyText(a, "My card number is secret. Thanks.")
	if gone.Entities == nil || len(*gone.Entities) != 0 {
		t.Fatalf("entities the edit removed remain: %+v", gone.Entities)
	}
}
