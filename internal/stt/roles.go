package stt

import (
	"slices"
	"strings"
	"unicode"
)

// RoleSurchargePercent is what detect_speaker_roles adds to the base cost of a transcription,
// as ElevenLabs charges it ("an additional 10% surcharge on base transcription cost").
const RoleSurchargePercent = 10

// The speaker ids detect_speaker_roles gives instead of speaker_0, speaker_1, ….
const (
	RoleAgent    = "agent"
	RoleCustomer = "customer"
)

// roleSurcharge is what r's detect_speaker_roles adds to base credits: 10 % (rounded up).
func roleSurcharge(base int64, r *Request) int64 {
	if !r.SpeakerRoles {
		return 0
	}
	return (base*RoleSurchargePercent + 99) / 100
}

// agentCues are what a call centre's agent says: greetings in the company's name, offers of
// help, the closing. Each is matched as whole words, in one speaker's turn.
var agentCues = [][]string{
	words("thank you for calling"), words("thanks for calling"), words("thank you for contacting"),
	words("how can i help"), words("how may i help"), words("how can i assist"), words("how may i assist"),
	words("what can i do for you"), words("welcome to"), words("you've reached"), words("you have reached"),
	words("is there anything else"), words("anything else i can help"),
	words("have a great day"), words("have a nice day"), words("have a good day"), words("have a wonderful day"),
	words("thank you for your patience"), words("bear with me"), words("let me pull up"), words("let me check that"),
}

// customerCues are what the caller says: what they want, their account, their problem.
var customerCues = [][]string{
	words("i'd like to"), words("i would like to"), words("i want to"), words("i wanted to"),
	words("my account"), words("i have a problem"), words("i've got a problem"), words("i have an issue"),
	words("can you help me"), words("could you help me"), words("i'm calling about"), words("i'm calling because"),
	words("i am calling about"), words("i need help"),
}

// words splits s into the lower-case tokens cues are matched on: letters, digits and
// apostrophes ("I’d" is "i'd").
func words(s string) []string {
	s = strings.ToLower(strings.NewReplacer("’", "'", "‘", "'").Replace(s))
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
}

// cueScores counts the agent and customer cues in one turn's tokens. Beside the phrases:
// "my name is <one to three words> and" ("my name is Sarah and I'll be looking after you") and
// "<name> speaking" (not "speaking of/to/with/about") are agent cues.
func cueScores(tokens []string) (agent, customer int) {
	at := func(i int, phrase []string) bool {
		return i+len(phrase) <= len(tokens) && slices.Equal(tokens[i:i+len(phrase)], phrase)
	}
	for i := range tokens {
		for _, c := range agentCues {
			if at(i, c) {
				agent++
			}
		}
		for _, c := range customerCues {
			if at(i, c) {
				customer++
			}
		}
		if at(i, []string{"my", "name", "is"}) {
			for k := i + 4; k <= i+6 && k < len(tokens); k++ {
				if tokens[k] == "and" {
					agent++
					break
				}
			}
		}
		if tokens[i] == "speaking" && i > 0 && (i+1 == len(tokens) || !slices.Contains([]string{"of", "to", "with", "about"}, tokens[i+1])) {
			agent++
		}
	}
	return agent, customer
}

// SpeakerRoles tells which of the speakers in words (a diarized transcript's entries) is the
// agent and which the customer, by the cues they say (see agentCues, customerCues): each
// speaker scores its agent cues minus its customer cues; the highest score is the agent, the
// one who spoke first on a tie (with no cues at all, the speaker who talks first: a call centre
// answers the call); every other speaker is a customer. A single speaker is the agent only if
// its score is positive. The map has every speaker id of a word entry.
func SpeakerRoles(ws []Word) map[string]string {
	var order []string // speakers in order of first word
	score := map[string]int{}
	var turn []string
	flush := func(speaker string) {
		a, c := cueScores(turn)
		score[speaker] += a - c
		turn = turn[:0]
	}
	current := ""
	for _, w := range ws {
		if w.Type != "word" || w.SpeakerID == nil {
			continue
		}
		if *w.SpeakerID != current {
			if current != "" {
				flush(current)
			}
			current = *w.SpeakerID
			if _, ok := score[current]; !ok {
				order = append(order, current)
				score[current] = 0
			}
		}
		turn = append(turn, words(w.Text)...)
	}
	if current != "" {
		flush(current)
	}
	roles := map[string]string{}
	if len(order) == 0 {
		return roles
	}
	agent := order[0]
	for _, s := range order[1:] {
		if score[s] > score[agent] {
			agent = s
		}
	}
	if len(order) == 1 && score[agent] <= 0 {
		agent = ""
	}
	for _, s := range order {
		roles[s] = RoleCustomer
	}
	if agent != "" {
		roles[agent] = RoleAgent
	}
	return roles
}

// applySpeakerRoles replaces t's speaker ids by roles when r asks for detect_speaker_roles
// (which needs diarize): every entry, words, spacing and audio events, carries its speaker's
// role; an entry of a speaker who says no word is a customer's.
func applySpeakerRoles(t *Transcript, r *Request) {
	if !r.SpeakerRoles {
		return
	}
	roles := SpeakerRoles(t.Words)
	for i, w := range t.Words {
		if w.SpeakerID == nil {
			continue
		}
		role := roles[*w.SpeakerID]
		if role == "" {
			role = RoleCustomer
		}
		t.Words[i].SpeakerID = ptr(role)
	}
}
