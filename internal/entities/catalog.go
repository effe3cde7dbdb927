// Package entities finds and redacts entities (card numbers, emails, phone numbers, names, …) in
// transcripts: a classical, rule-based detector that reads SPOKEN English as a recogniser writes
// it ("four one one one …", "john at example dot com") as well as written forms ("4111 1111 …",
// "john@example.com"). Entity types and categories are ElevenLabs' speech-to-text labels.
package entities

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Categories are the group keywords of entity_detection / entity_redaction ("all" is every type).
var Categories = map[string][]string{
	"pii": {
		"account_number", "age", "bank_account", "cardinal", "credit_card", "credit_card_expiration", "cvv",
		"date", "date_interval", "dob", "driver_license", "email_address", "event", "filename", "gender",
		"gender_sexuality", "sexual_orientation", "healthcare_number", "ip_address", "location",
		"location_address", "location_city", "location_coordinate", "location_country", "location_state",
		"location_zip", "money", "name", "name_given", "name_family", "name_medical_professional",
		"numerical_pii", "occupation", "ordinal", "origin", "passport_number", "password", "percent",
		"phone_number", "physical_attribute", "ssn", "time", "url", "username", "vehicle_id",
	},
	"phi": {"condition", "drug", "injury", "blood_type", "medical_process", "clinical_measurement", "statistics"},
	"pci": {"credit_card", "credit_card_expiration", "cvv"},
	"other": {
		"language", "marital_status", "organization", "political_affiliation", "religion", "routing_number",
		"zodiac_sign", "product_or_service", "food_or_beverage", "document_reference", "generic_id",
		"measurement", "time_duration",
	},
	"offensive_language": {"very_offensive_language", "less_offensive_language"},
}

// Detected are the types this package finds; every other known type is accepted and never found.
var Detected = []string{
	"age", "credit_card", "date", "dob", "email_address", "ip_address", "less_offensive_language",
	"money", "name", "name_family", "name_given", "name_medical_professional", "phone_number", "ssn",
	"url", "very_offensive_language",
}

// known is every entity type of every category.
var known = func() map[string]bool {
	m := map[string]bool{}
	for _, ts := range Categories {
		for _, t := range ts {
			m[t] = true
		}
	}
	return m
}()

// Known says whether t is an entity type (not a category).
func Known(t string) bool { return known[t] }

// Set is a selection of entity types.
type Set map[string]bool

// Has says whether the set holds type t.
func (s Set) Has(t string) bool { return s[t] }

// Covers says whether every type of o is in s.
func (s Set) Covers(o Set) bool {
	for t := range o {
		if !s[t] {
			return false
		}
	}
	return true
}

// Types lists the set's types, sorted.
func (s Set) Types() []string {
	out := make([]string, 0, len(s))
	for t := range s {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Parse reads entity_detection / entity_redaction values: each value is "all", a category, an
// entity type, or several of these separated by commas (a JSON list of them is accepted too, as
// form clients send lists either as repeated fields or as one JSON string). An unknown name is
// an error naming it; no values is an empty set.
func Parse(values []string) (Set, error) {
	s := Set{}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
			v = strings.Trim(v, "[]")
		}
		for _, name := range strings.Split(v, ",") {
			name = strings.ToLower(strings.Trim(strings.TrimSpace(name), `"'`))
			switch {
			case name == "":
			case name == "all":
				for t := range known {
					s[t] = true
				}
			case Categories[name] != nil:
				for _, t := range Categories[name] {
					s[t] = true
				}
			case known[name]:
				s[name] = true
			default:
				return nil, fmt.Errorf("unknown entity type or category '%s': use 'all', a category (%s) or an entity type such as credit_card, email_address, name, phone_number or ssn", name, strings.Join(categoryNames(), ", "))
			}
		}
	}
	return s, nil
}

func categoryNames() []string {
	out := make([]string, 0, len(Categories))
	for c := range Categories {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}
