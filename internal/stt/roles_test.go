package stt

import (
	"bytes"
	"errors"
	"mime/multipart"
	"net/http/httptest"
	"strings"
	"testing"

	"timbre/internal/errs"
)

// turns lays out a diarized conversation as Build does: each line is "speaker: words", the words
// one entry each with a spacing between entries (carrying the preceding word's speaker).
func turns(lines ...string) []Word {
	var ws []Word
	for _, l := range lines {
		speaker, text, _ := strings.Cut(l, ": ")
		for _, w := range strings.Fields(text) {
			if len(ws) > 0 {
				ws = append(ws, Word{Text: " ", Type: "spacing", SpeakerID: ws[len(ws)-1].SpeakerID})
			}
			ws = append(ws, Word{Text: w, Type: "word", SpeakerID: ptr(speaker)})
		}
	}
	return ws
}

func TestSpeakerRoles(t *testing.T) {
	for _, c := range []struct {
		name  string
		words []Word
		want  map[string]string
	}{
		{"agent answers", turns(
			"speaker_0: Thank you for calling Acme, how can I help you today?",
			"speaker_1: Hi, I'd like to change the address on my account.",
		), map[string]string{"speaker_0": "agent", "speaker_1": "customer"}},
		{"customer speaks first", turns(
			"speaker_0: Hello? I have a problem with my account.",
			"speaker_1: Sorry about that. My name is Sarah and I'll look into it. Is there anything else?",
			"speaker_0: No, that's all.",
			"speaker_1: Have a great day.",
		), map[string]string{"speaker_0": "customer", "speaker_1": "agent"}},
		{"name speaking", turns(
			"speaker_0: Hello.",
			"speaker_1: Support, Dana speaking.",
		), map[string]string{"speaker_0": "customer", "speaker_1": "agent"}},
		{"customer cues only", turns(
			"speaker_0: Hello.",
			"speaker_1: Can you help me? I want to cancel.",
		), map[string]string{"speaker_0": "agent", "speaker_1": "customer"}},
		{"no cues: the first speaker answers", turns(
			"speaker_0: Hello.",
			"speaker_1: Hello there.",
			"speaker_2: Hi.",
		), map[string]string{"speaker_0": "agent", "speaker_1": "customer", "speaker_2": "customer"}},
		{"three speakers", turns(
			"speaker_0: Hi, it's about the bill.",
			"speaker_1: And I'm on the line too.",
			"speaker_2: Welcome to Acme billing, how may I help?",
		), map[string]string{"speaker_0": "customer", "speaker_1": "customer", "speaker_2": "agent"}},
		{"curly apostrophe", turns(
			"speaker_0: Good morning.",
			"speaker_1: Morning, I’d like to book a table.",
		), map[string]string{"speaker_0": "agent", "speaker_1": "customer"}},
		{"single speaker with agent cues", turns("speaker_0: Thank you for calling, how may I help?"), map[string]string{"speaker_0": "agent"}},
		{"single speaker without", turns("speaker_0: I want to ask about speaking to someone."), map[string]string{"speaker_0": "customer"}},
		{"no speakers", []Word{{Text: "hello", Type: "word"}}, map[string]string{}},
	} {
		got := SpeakerRoles(c.words)
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		for s, r := range c.want {
			if got[s] != r {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
	// "speaking of" does not count, nor does a cue split by the other speaker's turn.
	if a, _ := cueScores(words("speaking of which")); a != 0 {
		t.Fatalf("'speaking of' scored %d", a)
	}
	ws := turns("speaker_1: Hello.", "speaker_0: How can I", "speaker_1: yes", "speaker_0: help")
	if r := SpeakerRoles(ws); r["speaker_0"] != "customer" || r["speaker_1"] != "agent" {
		t.Fatalf("cue across turns: %v", r)
	}
}

func TestApplySpeakerRoles(t *testing.T) {
	tr := &Transcript{Words: turns(
		"speaker_0: Hi, I want to pay my bill.",
		"speaker_1: Thank you for calling, how can I help?",
	)}
	tr.Words = append(tr.Words, Word{Text: "(laughter)", Type: "audio_event", SpeakerID: ptr("speaker_2")})
	applySpeakerRoles(tr, &Request{Diarize: true})
	if *tr.Words[0].SpeakerID != "speaker_0" {
		t.Fatal("roles applied without detect_speaker_roles")
	}
	var was []string
	for _, w := range tr.Words {
		was = append(was, *w.SpeakerID)
	}
	applySpeakerRoles(tr, &Request{Diarize: true, SpeakerRoles: true})
	for i, w := range tr.Words {
		want := "customer" // speaker_0's, and speaker_2's who says no word
		if was[i] == "speaker_1" {
			want = "agent"
		}
		if *w.SpeakerID != want {
			t.Fatalf("%q is %s's, want %s's", w.Text, *w.SpeakerID, want)
		}
	}
	// Exports show the roles: an SRT with speakers names them.
	srt, err := Export(&Transcript{Words: secondEach(tr.Words)}, ExportOptions{Format: "srt", IncludeSpeakers: ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(srt.Content, "agent") || !strings.Contains(srt.Content, "customer") || strings.Contains(srt.Content, "speaker_") {
		t.Fatalf("srt:\n%s", srt.Content)
	}
}

// secondEach gives words one second each.
func secondEach(ws []Word) []Word {
	out := make([]Word, len(ws))
	for i, w := range ws {
		w.Start, w.End = ptr(float64(i)), ptr(float64(i)+0.9)
		out[i] = w
	}
	return out
}

func TestSpeakerRoleSurcharge(t *testing.T) {
	for _, c := range []struct {
		base    int64
		roles   bool
		surplus int64
	}{
		{100, false, 0}, {100, true, 10}, {7, true, 1}, {25, true, 3}, {1, true, 1}, {0, true, 0},
	} {
		if got := roleSurcharge(c.base, &Request{SpeakerRoles: c.roles}); got != c.surplus {
			t.Errorf("base %d roles %v: surcharge %d, want %d", c.base, c.roles, got, c.surplus)
		}
	}
	// With entities too, each surcharge is taken on the base cost (30 + 30 + 10 on 100).
	r := &Request{SpeakerRoles: true, EntityDetection: []string{"ssn"}, EntityRedaction: []string{"ssn"}}
	if got := entitySurcharge(100, r) + roleSurcharge(100, r); got != 70 {
		t.Fatalf("combined surcharge %d", got)
	}
}

// TestSpeakerRolesValidation: detect_speaker_roles needs diarize and refuses use_multi_channel,
// each a 422 naming it.
func TestSpeakerRolesValidation(t *testing.T) {
	parse := func(fields map[string]string) (*Request, error) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		for k, v := range fields {
			mw.WriteField(k, v)
		}
		fw, _ := mw.CreateFormFile("file", "a.wav")
		fw.Write([]byte("RIFF"))
		mw.Close()
		r := httptest.NewRequest("POST", "/v1/speech-to-text", &body)
		r.Header.Set("Content-Type", mw.FormDataContentType())
		return (&Handlers{}).parse(r)
	}
	for _, c := range []struct {
		fields map[string]string
		msg    string
	}{
		{map[string]string{"detect_speaker_roles": "true"}, "requires diarize=true"},
		{map[string]string{"detect_speaker_roles": "true", "diarize": "false"}, "requires diarize=true"},
		{map[string]string{"detect_speaker_roles": "true", "use_multi_channel": "true"}, "cannot be used with use_multi_channel"},
		{map[string]string{"detect_speaker_roles": "true", "diarize": "true", "use_multi_channel": "true"}, "cannot be used with use_multi_channel"},
	} {
		c.fields["model_id"] = "scribe_v1"
		_, err := parse(c.fields)
		var v *errs.Validation
		if !errors.As(err, &v) {
			t.Fatalf("%v: %v", c.fields, err)
		}
		found := false
		for _, f := range v.Fields {
			if f.Loc[len(f.Loc)-1] == "detect_speaker_roles" && strings.Contains(f.Msg, c.msg) {
				found = true
			}
		}
		if !found {
			t.Fatalf("%v: %+v", c.fields, v.Fields)
		}
	}
	r, err := parse(map[string]string{"model_id": "scribe_v1", "diarize": "true", "detect_speaker_roles": "true"})
	if err != nil || !r.SpeakerRoles || !r.Diarize {
		t.Fatalf("%+v %v", r, err)
	}
}
