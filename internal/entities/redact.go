package entities

import (
	"fmt"
	"strings"
)

// Redaction modes (entity_redaction_mode).
const (
	ModeRedacted   = "redacted"               // {REDACTED}
	ModeType       = "entity_type"            // {CREDIT_CARD}
	ModeEnumerated = "enumerated_entity_type" // {CREDIT_CARD_0}, {CREDIT_CARD_1}, … (the default)
)

// Modes are the accepted entity_redaction_mode values.
var Modes = []string{ModeRedacted, ModeType, ModeEnumerated}

// Markers gives the text that replaces each entity of ents (in order) in mode: enumerated
// markers count each type's occurrences from 0, in order of position.
func Markers(ents []Entity, mode string) []string {
	out := make([]string, len(ents))
	seen := map[string]int{}
	for i, e := range ents {
		typ := strings.ToUpper(e.Type)
		switch mode {
		case ModeRedacted:
			out[i] = "{REDACTED}"
		case ModeType:
			out[i] = "{" + typ + "}"
		default:
			out[i] = fmt.Sprintf("{%s_%d}", typ, seen[typ])
			seen[typ]++
		}
	}
	return out
}

// Redact replaces each entity of ents (found in text, in order, not overlapping) with its marker.
func Redact(text string, ents []Entity, mode string) string {
	var b strings.Builder
	at := 0
	for i, m := range Markers(ents, mode) {
		b.WriteString(text[at:ents[i].start])
		b.WriteString(m)
		at = ents[i].end
	}
	b.WriteString(text[at:])
	return b.String()
}
