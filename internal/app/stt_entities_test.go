package app_test

import (
	"encoding/json"
	"strings"
	"testing"

	"timbre/internal/plan"
	"timbre/internal/testdb"
)

type sttEntities struct {
	sttResponse
	Entities *[]struct {
		Text       string `json:"text"`
		EntityType string `json:"entity_type"`
		StartChar  int    `json:"start_char"`
		EndChar    int    `json:"end_char"`
	} `json:"entities"`
}

// Entity detection and redaction on real speech: Josh (flite kal16, the same audio every time)
// reads a card number digit by digit, and a name with a phone number; pocketsphinx writes the
// digits as words, which the detector reads.
func TestSpeechToTextEntities(t *testing.T) {
	const card = "four one one one one one one one one one one one one one one one"
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			speakJosh := func(text string) []byte {
				r := e.do("POST", "/v1/text-to-speech/"+josh+"?output_format=mp3_44100_128", e.key, map[string]any{"text": text})
				expect(t, r, 200)
				return r.body
			}
			cardMP3 := speakJosh("My card number is " + card + ".")
			namePhoneMP3 := speakJosh("My name is John Smith and my phone number is five five five one two three four five six seven.")

			transcribe := func(mp3 []byte, fields map[string]any) (sttEntities, map[string]any, int64) {
				t.Helper()
				before := e.workspace().CharacterCount
				fields["model_id"] = "scribe_v2"
				fields["tag_audio_events"] = "false"
				r := e.postForm("/v1/speech-to-text", "file", mp3, fields, "xi-api-key", e.key)
				expect(t, r, 200)
				var tr sttEntities
				var raw map[string]any
				if err := json.Unmarshal(r.body, &tr); err != nil {
					t.Fatal(err)
				}
				_ = json.Unmarshal(r.body, &raw)
				var joined strings.Builder
				for _, w := range tr.Words {
					joined.WriteString(w.Text)
				}
				if joined.String() != tr.Text {
					t.Fatalf("the words %q do not make the text %q", joined.String(), tr.Text)
				}
				return tr, raw, e.workspace().CharacterCount - before
			}
			base := func(tr sttEntities) int64 { return plan.STTCredits(plan.Get("free"), tr.Duration) }
			surcharge := func(b int64) int64 { return (b*30 + 99) / 100 }

			// Detection: the card number, at character offsets into the text; 30 % more charged.
			tr, _, charged := transcribe(cardMP3, map[string]any{"entity_detection": "all"})
			if tr.Entities == nil || len(*tr.Entities) != 1 {
				t.Fatalf("entities %+v in %q", tr.Entities, tr.Text)
			}
			ent := (*tr.Entities)[0]
			if ent.EntityType != "credit_card" || ent.Text != card || string([]rune(tr.Text)[ent.StartChar:ent.EndChar]) != card {
				t.Fatalf("entity %+v in %q", ent, tr.Text)
			}
			if want := base(tr) + surcharge(base(tr)); charged != want {
				t.Fatalf("charged %d for detection, want %d (base %d)", charged, want, base(tr))
			}
			// Kept with the transcript.
			got := e.do("GET", "/v1/speech-to-text/transcripts/"+tr.TranscriptionID, e.key, nil)
			expect(t, got, 200)
			if !strings.Contains(string(got.body), `"entity_type":"credit_card"`) {
				t.Fatalf("stored transcript lacks the entity: %s", got.body)
			}

			// Redaction, in each mode: the text and the words carry the marker, no entities are
			// listed, and detection and redaction are each charged 30 %.
			for mode, marker := range map[string]string{"": "{CREDIT_CARD_0}", "enumerated_entity_type": "{CREDIT_CARD_0}", "entity_type": "{CREDIT_CARD}", "redacted": "{REDACTED}"} {
				fields := map[string]any{"entity_detection": "pci", "entity_redaction": "credit_card"}
				if mode != "" {
					fields["entity_redaction_mode"] = mode
				}
				tr, raw, charged := transcribe(cardMP3, fields)
				if !strings.Contains(tr.Text, "number is "+marker) || strings.Contains(tr.Text, "one one") {
					t.Fatalf("mode %q: %q", mode, tr.Text)
				}
				if _, ok := raw["entities"]; ok {
					t.Fatalf("mode %q: entities listed with redaction", mode)
				}
				markers := 0
				for _, w := range tr.Words {
					if strings.HasPrefix(w.Text, marker) {
						markers++
						if w.Type != "word" || w.Start == nil || *w.End-*w.Start < 2 {
							t.Fatalf("mode %q: marker word %+v does not span the number", mode, w)
						}
					}
				}
				if markers != 1 {
					t.Fatalf("mode %q: %d marker words", mode, markers)
				}
				if want := base(tr) + 2*surcharge(base(tr)); charged != want {
					t.Fatalf("mode %q: charged %d, want %d", mode, charged, want)
				}
			}

			// Several types (repeated fields); only the redacted one is replaced.
			tr, _, _ = transcribe(namePhoneMP3, map[string]any{"entity_detection": []string{"name", "phone_number"}})
			if tr.Entities == nil || len(*tr.Entities) != 2 {
				t.Fatalf("entities %+v in %q", tr.Entities, tr.Text)
			}
			for i, want := range []string{"name", "phone_number"} {
				ent := (*tr.Entities)[i]
				if ent.EntityType != want || string([]rune(tr.Text)[ent.StartChar:ent.EndChar]) != ent.Text {
					t.Fatalf("entity %d %+v in %q", i, ent, tr.Text)
				}
			}
			tr, _, _ = transcribe(namePhoneMP3, map[string]any{"entity_detection": "name,phone_number", "entity_redaction": "name", "entity_redaction_mode": "entity_type"})
			// (The recogniser hears the "and" after the name as "on" in some runs.)
			if !strings.HasPrefix(tr.Text, "My name is {NAME} ") || !strings.Contains(tr.Text, "five five five") {
				t.Fatalf("redacted %q", tr.Text)
			}

			// Refused, naming the field, and nothing charged.
			before := e.workspace().CharacterCount
			for _, c := range []struct {
				fields map[string]any
				field  string
			}{
				{map[string]any{"entity_detection": "pci", "entity_redaction": "pii"}, "entity_redaction"},
				{map[string]any{"entity_redaction": "credit_card"}, "entity_redaction"},
				{map[string]any{"entity_detection": "credit_cards"}, "entity_detection"},
				{map[string]any{"entity_detection": "pii", "entity_redaction": "pii", "entity_redaction_mode": "masked"}, "entity_redaction_mode"},
			} {
				c.fields["model_id"] = "scribe_v2"
				r := e.postForm("/v1/speech-to-text", "file", cardMP3, c.fields, "xi-api-key", e.key)
				if loc := fieldError(t, r); loc[len(loc)-1] != c.field {
					t.Fatalf("%v: 422 names %v, want %s", c.fields, loc, c.field)
				}
			}
			if e.workspace().CharacterCount != before {
				t.Fatal("a refused request was charged")
			}
		})
	}
}

// TestSpeechToTextWebEntities: the web app's view of a multichannel transcript made with
// entity_detection shows the channels' entities at their places in its one text, and after an
// edit of the text those it still contains, at their new places.
func TestSpeechToTextWebEntities(t *testing.T) {
	const card = "four one one one one one one one one one one one one one one one"
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			left := e.speakPCM(josh, "My card number is "+card+".", 0)
			right := e.speakPCM(adam, "Thank you.", float64(len(left))/16000+0.5)
			// The card number's words as keyterms make it certain: without it the recogniser heard the
			// run of "one" as "what what …" in about one run in ten (depending on the server's
			// watermark key and on what its decoders had decoded before), and this test is about the
			// page, not the recogniser.
			r := e.postForm("/v1/speech-to-text", "file", mergeChannels(t, left, right), map[string]any{
				"model_id": "scribe_v1", "use_multi_channel": "true", "entity_detection": "all", "tag_audio_events": "false",
				"keyterms": []string{"number is four one one", "one one one one one"},
			}, "xi-api-key", e.key)
			expect(t, r, 200)
			var m struct {
				Transcripts []sttEntities `json:"transcripts"`
				ID          string        `json:"transcription_id"`
			}
			if err := json.Unmarshal(r.body, &m); err != nil {
				t.Fatal(err)
			}
			if len(m.Transcripts) != 2 || m.Transcripts[0].Entities == nil || len(*m.Transcripts[0].Entities) != 1 {
				t.Fatalf("response: %s", r.body)
			}
			type view struct {
				Transcript *sttEntities `json:"transcript"`
			}
			check := func(body []byte, want int) sttEntities {
				t.Helper()
				var v view
				if err := json.Unmarshal(body, &v); err != nil || v.Transcript == nil || v.Transcript.Entities == nil {
					t.Fatalf("view: %s", body)
				}
				ents := *v.Transcript.Entities
				if len(ents) != want {
					t.Fatalf("view has %d entities, want %d: %s", len(ents), want, body)
				}
				for _, ent := range ents {
					if ent.EntityType != "credit_card" || ent.Text != card || string([]rune(v.Transcript.Text)[ent.StartChar:ent.EndChar]) != card {
						t.Fatalf("entity %+v in %q", ent, v.Transcript.Text)
					}
				}
				return *v.Transcript
			}
			got := e.do("GET", "/api/speech-to-text/transcripts/"+m.ID, e.key, nil)
			expect(t, got, 200)
			tr := check(got.body, 1)
			t.Logf("%s: %q", d, tr.Text)

			edited := e.do("PATCH", "/api/speech-to-text/transcripts/"+m.ID, e.key, map[string]any{"text": "Our " + tr.Text})
			expect(t, edited, 200)
			check(edited.body, 1)
			gone := e.do("PATCH", "/api/speech-to-text/transcripts/"+m.ID, e.key, map[string]any{"text": strings.Replace(tr.Text, card, "a secret", 1)})
			expect(t, gone, 200)
			check(gone.body, 0)
		})
	}
}
