package entities

import (
	"strings"
	"testing"
)

func all(t *testing.T) Set {
	t.Helper()
	s, err := Parse([]string{"all"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func found(ents []Entity) string {
	var parts []string
	for _, e := range ents {
		parts = append(parts, e.Type+":"+e.Text)
	}
	return strings.Join(parts, " | ")
}

func TestDetectSpokenAndWritten(t *testing.T) {
	cases := []struct{ text, want string }{
		// Card numbers: spoken digit by digit, written in groups, Luhn-checked.
		{"My card number is four one one one one one one one one one one one one one one one.", "credit_card:four one one one one one one one one one one one one one one one"},
		{"My credit card number is 4242-4242-4242-4242.", "credit_card:4242-4242-4242-4242"},
		{"Pay with 4111 1111 1111 1111 please", "credit_card:4111 1111 1111 1111"},
		{"the card is double five double five double five double five double five double five four four four four", "credit_card:double five double five double five double five double five double five four four four four"},
		// Social security numbers.
		{"My social security number is one two three four five six seven eight nine.", "ssn:one two three four five six seven eight nine"},
		{"SSN 123-45-6789 on file", "ssn:123-45-6789"},
		// Phone numbers.
		{"Call me at five five five one two three four five six seven.", "phone_number:five five five one two three four five six seven"},
		{"my number is (415) 555-0123.", "phone_number:(415) 555-0123"},
		{"Dial +44 20 7946 0958 now", "phone_number:+44 20 7946 0958"},
		{"the office is 555-0100", "phone_number:555-0100"},
		// Emails and URLs.
		{"write to john at example dot com today", "email_address:john at example dot com"},
		{"It's jane dot doe at mail dot example dot org.", "email_address:jane dot doe at mail dot example dot org"},
		{"Mail john.smith@example.co.uk now.", "email_address:john.smith@example.co.uk"},
		{"Look at google dot com for it", "url:google dot com"},
		{"go to www dot timbre dot io slash pricing", "url:www dot timbre dot io slash pricing"},
		{"see https://example.com/a?b=c for more", "url:https://example.com/a?b=c"},
		{"our site example.org has it", "url:example.org"},
		// IP addresses.
		{"the server is at 192.168.1.20.", "ip_address:192.168.1.20"},
		{"ping ten dot zero dot zero dot one", "ip_address:ten dot zero dot zero dot one"},
		{"ping one nine two dot one six eight dot one dot one now", "ip_address:one nine two dot one six eight dot one dot one"},
		// Dates.
		{"My date of birth is the 12th of July 1987, and", "dob:12th of July 1987"},
		{"I was born on july twelfth nineteen eighty seven", "dob:july twelfth nineteen eighty seven"},
		{"The meeting is on March 3, 2024 at noon.", "date:March 3, 2024"},
		{"we moved in june twenty twenty", "date:june twenty twenty"},
		{"it is due on the twenty first of may", "date:twenty first of may"},
		{"Invoice dated 2024-01-15.", "date:2024-01-15"},
		{"signed 12/07/1987 in ink", "date:12/07/1987"},
		// Money.
		{"It cost twenty five dollars.", "money:twenty five dollars"},
		{"It cost $1,250.50 in total", "money:$1,250.50"},
		{"two dollars and fifty cents each", "money:two dollars and fifty cents"},
		{"a fee of 30 euros", "money:30 euros"},
		// Ages.
		{"She is forty two years old.", "age:forty two years old"},
		{"a 5-year-old boy", "age:5-year-old"},
		{"he died aged ninety", "age:ninety"},
		// Names.
		{"My name is Jill. I live here.", "name:Jill"},
		{"I spoke with john smith yesterday", "name:john smith"},
		{"Then Sarah Connor arrived", "name:Sarah Connor"},
		{"hello grace how are you", "name:grace"},
		{"Ask Doctor Patel about it", "name_medical_professional:Doctor Patel"},
		{"Mr Henderson called", "name:Henderson"},
		// Offensive language.
		{"what the fuck is this shit", "very_offensive_language:fuck | less_offensive_language:shit"},
	}
	want := all(t)
	for _, c := range cases {
		got := Detect(c.text, want)
		if found(got) != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.text, found(got), c.want)
		}
		for _, e := range got {
			if r := []rune(c.text); string(r[e.StartChar:e.EndChar]) != e.Text {
				t.Errorf("%q: offsets %d–%d give %q, not %q", c.text, e.StartChar, e.EndChar, string(r[e.StartChar:e.EndChar]), e.Text)
			}
		}
	}
}

// Ordinary sentences hold no entities: numbers, common words that are also names, "at" and
// "dot" in their everyday senses.
func TestDetectNoFalsePositives(t *testing.T) {
	for _, text := range []string{
		"It is a nice day to go for a walk in the park.",
		"The birch canoe slid on the smooth planks.",
		"I will mark the may pole in march and hope for joy.",
		"We met at the station at nine and took the seven fifteen train.",
		"He counted one two three four and then jumped.",
		"Chapter four, section one, paragraph two.",
		"Can you frank the letters and grant us a day?",
		"The score was three to one after ninety minutes.",
		"Turn left at the second light, then dot the i's.",
		"I will be there in twenty minutes with two friends.",
		"Put the rose in the vase and the ivy on the wall.",
		"The class of twenty students sat in row five.",
		"They march twenty miles and may ten more tomorrow.",
		"I was born in a small town and grew up with four brothers.",
		"Give me one pound of apples at five past nine.",
	} {
		if got := Detect(text, all(t)); len(got) != 0 {
			t.Errorf("%q: found %s", text, found(got))
		}
	}
}

func TestLuhn(t *testing.T) {
	for _, c := range []struct {
		digits string
		ok     bool
	}{
		{"4111111111111111", true}, {"4242424242424242", true}, {"5555555555554444", true},
		{"378282246310005", true}, {"4111111111111112", false}, {"1234567890123456", false}, {"", false},
	} {
		if Luhn(c.digits) != c.ok {
			t.Errorf("Luhn(%s) = %v", c.digits, !c.ok)
		}
	}
	// A sixteen-digit number that fails the checksum is no card number (nor anything else).
	if got := Detect("the code is four one one one one one one one one one one one one one one two", all(t)); len(got) != 0 {
		t.Fatalf("a Luhn-invalid number was found: %s", found(got))
	}
	if got := Detect("ref 1234 5678 9012 3456", all(t)); len(got) != 0 {
		t.Fatalf("a Luhn-invalid written number was found: %s", found(got))
	}
}

func TestSelection(t *testing.T) {
	text := "My name is Jill Smith, my card is 4242 4242 4242 4242 and my email is jill at example dot com."
	pci, _ := Parse([]string{"pci"})
	if got := found(Detect(text, pci)); got != "credit_card:4242 4242 4242 4242" {
		t.Fatalf("pci: %s", got)
	}
	both, _ := Parse([]string{"email_address", "name_given"})
	if got := found(Detect(text, both)); got != "name_given:Jill | email_address:jill at example dot com" {
		t.Fatalf("email_address+name_given: %s", got)
	}
	fam, _ := Parse([]string{`["name_family","credit_card"]`})
	if got := found(Detect(text, fam)); got != "name_family:Smith | credit_card:4242 4242 4242 4242" {
		t.Fatalf("JSON list: %s", got)
	}
	// A dob wanted only as a date is a date.
	date, _ := Parse([]string{"date"})
	if got := found(Detect("I was born on the 1st of May 1990.", date)); got != "date:1st of May 1990" {
		t.Fatalf("date: %s", got)
	}
	if _, err := Parse([]string{"pii,credit_cards"}); err == nil || !strings.Contains(err.Error(), "credit_cards") {
		t.Fatalf("an unknown type was accepted: %v", err)
	}
	pii, _ := Parse([]string{"pii"})
	if !all(t).Covers(pii) || pii.Covers(all(t)) || !pii.Has("credit_card") || pii.Has("drug") {
		t.Fatal("category membership")
	}
	for _, d := range Detected {
		if !Known(d) {
			t.Errorf("detected type %s is not an ElevenLabs type", d)
		}
	}
}

func TestRedact(t *testing.T) {
	text := "Call john at five five five one two three four five six seven or mary at five five five nine eight seven six five four three."
	ents := Detect(text, all(t))
	if len(ents) != 4 {
		t.Fatalf("found %s", found(ents))
	}
	for mode, want := range map[string]string{
		ModeEnumerated: "Call {NAME_0} at {PHONE_NUMBER_0} or {NAME_1} at {PHONE_NUMBER_1}.",
		ModeType:       "Call {NAME} at {PHONE_NUMBER} or {NAME} at {PHONE_NUMBER}.",
		ModeRedacted:   "Call {REDACTED} at {REDACTED} or {REDACTED} at {REDACTED}.",
	} {
		if got := Redact(text, ents, mode); got != want {
			t.Errorf("%s: %s", mode, got)
		}
	}
}
