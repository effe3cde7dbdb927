package stt

import (
	"strings"

	"timbre/internal/engine"
	"timbre/internal/entities"
)

// EntitySurchargePercent is what entity_detection and entity_redaction each add to the base cost
// of a transcription, as ElevenLabs charges them ("an additional 30% surcharge on the base
// transcription cost").
const EntitySurchargePercent = 30

// entitySurcharge is what r's entity options add to base credits: 30 % (rounded up) for
// entity_detection and as much again for entity_redaction.
func entitySurcharge(base int64, r *Request) int64 {
	n := int64(0)
	if len(r.EntityDetection) > 0 {
		n++
	}
	if len(r.EntityRedaction) > 0 {
		n++
	}
	return n * ((base*EntitySurchargePercent + 99) / 100)
}

func setOf(types []string) entities.Set {
	s := entities.Set{}
	for _, t := range types {
		s[t] = true
	}
	return s
}

// applyEntities finds the entities r asks for in t's text: without redaction they are listed in
// t.Entities (character offsets into t.Text); with it, those of the redacted types are replaced
// by markers in the text and the words, and no entities are listed.
func applyEntities(t *Transcript, r *Request) {
	if len(r.EntityDetection) == 0 {
		return
	}
	found := entities.Detect(t.Text, setOf(r.EntityDetection))
	if len(r.EntityRedaction) == 0 {
		t.Entities = &found
		return
	}
	redact := setOf(r.EntityRedaction)
	var gone []entities.Entity
	for _, e := range found {
		if redact.Has(e.Type) {
			gone = append(gone, e)
		}
	}
	if len(gone) == 0 {
		return
	}
	markers := entities.Markers(gone, r.RedactionMode)
	var joined strings.Builder
	for _, w := range t.Words {
		joined.WriteString(w.Text)
	}
	if joined.String() != t.Text { // no words to follow the text (an empty transcript)
		t.Text = entities.Redact(t.Text, gone, r.RedactionMode)
		return
	}
	t.Words = redactWords(t.Words, gone, markers)
	var text strings.Builder
	for _, w := range t.Words {
		text.WriteString(w.Text)
	}
	t.Text = text.String()
}

// redactWords replaces the entries that the entities cover (words and the spacing between
// them; their texts laid end to end are the transcript's text) by one word holding the marker,
// timed from the first covered word's start to the last one's end.
func redactWords(words []Word, ents []entities.Entity, markers []string) []Word {
	starts := make([]int, len(words)+1)
	for i, w := range words {
		starts[i+1] = starts[i] + len(w.Text)
	}
	out := make([]Word, 0, len(words))
	i := 0
	for k, e := range ents {
		s, end := e.Bytes()
		for i < len(words) && starts[i+1] <= s {
			out = append(out, words[i])
			i++
		}
		if i >= len(words) {
			break
		}
		a := i
		for i < len(words) && starts[i] < end {
			i++
		}
		b := i - 1
		first, last := words[a], words[b]
		merged := Word{
			Text:  first.Text[:max(0, s-starts[a])] + markers[k] + last.Text[min(len(last.Text), end-starts[b]):],
			Start: first.Start, End: last.End, Type: "word",
			SpeakerID: first.SpeakerID, ChannelIndex: first.ChannelIndex, Logprob: first.Logprob,
		}
		for _, w := range words[a : b+1] {
			if w.Type == "word" {
				merged.Logprob = min(merged.Logprob, w.Logprob)
			}
		}
		if first.Characters != nil && merged.Start != nil && merged.End != nil {
			merged.Characters = characters(engine.TranscriptWord{Text: merged.Text, Start: *merged.Start, End: *merged.End})
		}
		out = append(out, merged)
	}
	return append(out, words[i:]...)
}
