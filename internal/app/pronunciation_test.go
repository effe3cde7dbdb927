package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/testdb"
	"timbre/internal/tts"
)

// postPLS uploads a PLS file to add-from-file.
func (e *env) postPLS(key, name string, pls []byte) *resp {
	e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("name", name)
	if pls != nil {
		fw, _ := mw.CreateFormFile("file", "lexicon.pls")
		_, _ = fw.Write(pls)
	}
	_ = mw.Close()
	req, _ := http.NewRequest("POST", e.srv.URL+"/v1/pronunciation-dictionaries/add-from-file", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("xi-api-key", key)
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	var body bytes.Buffer
	_, _ = body.ReadFrom(res.Body)
	return &resp{res, body.Bytes()}
}

const testPLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme><grapheme>tomato</grapheme><phoneme>təˈmɑːtoʊ</phoneme></lexeme>
  <lexeme><grapheme>UN</grapheme><grapheme>U.N.</grapheme><alias>United Nations</alias></lexeme>
  <lexeme><grapheme>Nguyen</grapheme><phoneme alphabet="cmu-arpabet">W IH1 N</phoneme></lexeme>
</lexicon>`

// TestPronunciationDictionaries: the nine routes (from a PLS file and from rules; get, list
// with cursor paging and sort, add, remove and set rules each making a version whose old ones
// stay downloadable; rename and archive), on both databases.
func TestPronunciationDictionaries(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			r := e.postPLS(e.key, "From PLS", []byte(testPLS))
			fromFile := mustOK(t, r)
			if fromFile["version_rules_num"].(float64) != 4 || fromFile["permission_on_resource"] != "admin" {
				t.Fatalf("add-from-file answered %v", fromFile)
			}
			id := fromFile["id"].(string)
			v1 := fromFile["version_id"].(string)

			got := mustOK(t, e.do("GET", "/v1/pronunciation-dictionaries/"+id, e.key, nil))
			rules := got["rules"].([]any)
			if len(rules) != 4 || got["latest_version_id"] != v1 || got["name"] != "From PLS" {
				t.Fatalf("get answered %v", got)
			}
			first := rules[0].(map[string]any)
			if first["type"] != "phoneme" || first["alphabet"] != "ipa" || first["phoneme"] != "təˈmɑːtoʊ" || first["case_sensitive"] != true || first["word_boundaries"] != true {
				t.Fatalf("first rule %v", first)
			}

			// add-rules makes a new version; a rule for an existing string replaces it.
			ch := mustOK(t, e.do("POST", "/v1/pronunciation-dictionaries/"+id+"/add-rules", e.key, map[string]any{"rules": []any{
				map[string]any{"type": "alias", "string_to_replace": "UN", "alias": "the U N", "case_sensitive": false},
				map[string]any{"type": "alias", "string_to_replace": "CEO", "alias": "chief executive officer"},
			}}))
			v2 := ch["version_id"].(string)
			if v2 == v1 || ch["version_rules_num"].(float64) != 5 {
				t.Fatalf("add-rules answered %v", ch)
			}
			ch = mustOK(t, e.do("POST", "/v1/pronunciation-dictionaries/"+id+"/remove-rules", e.key, map[string]any{"rule_strings": []string{"Nguyen", "U.N."}}))
			v3 := ch["version_id"].(string)
			if ch["version_rules_num"].(float64) != 3 {
				t.Fatalf("remove-rules answered %v", ch)
			}
			ch = mustOK(t, e.do("POST", "/v1/pronunciation-dictionaries/"+id+"/set-rules", e.key, map[string]any{"rules": []any{
				map[string]any{"type": "phoneme", "string_to_replace": "data", "phoneme": "D EY1 T AH0", "alphabet": "cmu-arpabet"},
			}}))
			v4 := ch["version_id"].(string)
			if ch["version_rules_num"].(float64) != 1 {
				t.Fatalf("set-rules answered %v", ch)
			}
			// Every version stays downloadable as PLS; each holds its own rules.
			for _, c := range []struct {
				ver         string
				has, hasNot string
			}{{v1, "<grapheme>Nguyen</grapheme>", "CEO"}, {v2, "chief executive officer", "data"}, {v3, "CEO", "Nguyen"}, {v4, "D EY1 T AH0", "tomato"}} {
				r := e.do("GET", "/v1/pronunciation-dictionaries/"+id+"/"+c.ver+"/download", e.key, nil)
				expect(t, r, 200)
				if !strings.Contains(string(r.body), c.has) || strings.Contains(string(r.body), c.hasNot) || !strings.Contains(string(r.body), "<lexicon") {
					t.Errorf("version %s downloaded as %s", c.ver, r.body)
				}
				// What was downloaded uploads again.
				if c.ver == v1 {
					again := mustOK(t, e.postPLS(e.key, "Round trip", r.body))
					if again["version_rules_num"].(float64) != 4 {
						t.Errorf("round trip kept %v rules", again["version_rules_num"])
					}
				}
			}
			expect(t, e.do("GET", "/v1/pronunciation-dictionaries/"+id+"/nosuchversion/download", e.key, nil), 404)

			// From rules, then list with paging and sorting.
			for _, n := range []string{"Charlie", "alpha", "Bravo"} {
				mustOK(t, e.do("POST", "/v1/pronunciation-dictionaries/add-from-rules", e.key, map[string]any{"name": n, "description": "about " + n,
					"rules": []any{map[string]any{"type": "alias", "string_to_replace": n, "alias": n + " alias"}}}))
			}
			var names []string
			cursor := ""
			for pages := 0; ; pages++ {
				q := "?sort=name&sort_direction=ascending&page_size=2"
				if cursor != "" {
					q += "&cursor=" + cursor
				}
				page := mustOK(t, e.do("GET", "/v1/pronunciation-dictionaries"+q, e.key, nil))
				for _, d := range page["pronunciation_dictionaries"].([]any) {
					names = append(names, d.(map[string]any)["name"].(string))
				}
				if page["has_more"] != true {
					break
				}
				cursor = page["next_cursor"].(string)
				if pages > 5 {
					t.Fatal("paging does not end")
				}
			}
			if fmt.Sprint(names) != "[Bravo Charlie From PLS Round trip alpha]" {
				t.Errorf("by name: %v", names)
			}
			page := mustOK(t, e.do("GET", "/v1/pronunciation-dictionaries?page_size=100", e.key, nil))
			if n := len(page["pronunciation_dictionaries"].([]any)); n != 5 {
				t.Errorf("listed %d", n)
			}

			// Rename and archive; archived ones leave the list when asked.
			p := mustOK(t, e.do("PATCH", "/v1/pronunciation-dictionaries/"+id, e.key, map[string]any{"name": "Renamed", "archived": true}))
			if p["name"] != "Renamed" || p["archived_time_unix"] == nil {
				t.Fatalf("patch answered %v", p)
			}
			page = mustOK(t, e.do("GET", "/v1/pronunciation-dictionaries?include_archived=false", e.key, nil))
			for _, d := range page["pronunciation_dictionaries"].([]any) {
				if d.(map[string]any)["id"] == id {
					t.Error("an archived dictionary was listed with include_archived=false")
				}
			}

			// Invalid input: 422 naming the field, nothing stored.
			for _, c := range []struct {
				body  map[string]any
				field string
			}{
				{map[string]any{"name": "x", "rules": []any{map[string]any{"type": "alias", "string_to_replace": "a"}}}, "rules.0.alias"},
				{map[string]any{"name": "x", "rules": []any{map[string]any{"type": "phoneme", "string_to_replace": "a", "phoneme": "ʘʘ", "alphabet": "ipa"}}}, "rules.0.phoneme"},
				{map[string]any{"name": "x", "rules": []any{map[string]any{"type": "phoneme", "string_to_replace": "a", "phoneme": "AA1", "alphabet": "klingon"}}}, "rules.0.alphabet"},
				{map[string]any{"name": "x", "rules": []any{map[string]any{"type": "shout", "string_to_replace": "a"}}}, "rules.0.type"},
				{map[string]any{"name": " ", "rules": []any{}}, "name"},
				{map[string]any{"name": "x"}, "rules"},
			} {
				if loc := fieldError(t, e.do("POST", "/v1/pronunciation-dictionaries/add-from-rules", e.key, c.body)); loc[1] != c.field {
					t.Errorf("%v: error names %v", c.body, loc)
				}
			}
			page = mustOK(t, e.do("GET", "/v1/pronunciation-dictionaries?page_size=100", e.key, nil))
			if n := len(page["pronunciation_dictionaries"].([]any)); n != 5 {
				t.Errorf("failed requests left dictionaries: %d", n)
			}
		})
	}
}

// TestPronunciationPLSSafety: malformed PLS, DOCTYPE declarations (an entity bomb, an external
// entity) are refused naming the file, and store nothing.
func TestPronunciationPLSSafety(t *testing.T) {
	e := newEnv(t, "sqlite")
	bomb := `<?xml version="1.0"?>
<!DOCTYPE lexicon [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa"><lexeme><grapheme>&c;</grapheme><alias>x</alias></lexeme></lexicon>`
	external := `<?xml version="1.0"?>
<!DOCTYPE lexicon [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"><lexeme><grapheme>a</grapheme><alias>&x;</alias></lexeme></lexicon>`
	for name, doc := range map[string]string{
		"bomb":      bomb,
		"external":  external,
		"malformed": `<lexicon><lexeme><grapheme>a</grapheme><alias>b</lexeme></lexicon>`,
		"not pls":   `<html><body>hello</body></html>`,
		"no alias":  `<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"><lexeme><grapheme>a</grapheme></lexeme></lexicon>`,
		"bad ipa":   `<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa"><lexeme><grapheme>a</grapheme><phoneme>ǂǂ</phoneme></lexeme></lexicon>`,
	} {
		if loc := fieldError(t, e.postPLS(e.key, name, []byte(doc))); loc[1] != "file" {
			t.Errorf("%s: error names %v", name, loc)
		}
	}
	if loc := fieldError(t, e.postPLS(e.key, "no file", nil)); loc[1] != "file" {
		t.Errorf("no file: error names %v", loc)
	}
	big := bytes.Repeat([]byte("<!-- padding -->"), 200_000)
	if r := e.postPLS(e.key, "big", big); r.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a 3 MB file: %d", r.StatusCode)
	}
	page := mustOK(t, e.do("GET", "/v1/pronunciation-dictionaries", e.key, nil))
	if n := len(page["pronunciation_dictionaries"].([]any)); n != 0 {
		t.Errorf("refused files left %d dictionaries", n)
	}
}

// TestPronunciationSharing: another workspace's dictionary is not found (also as a TTS
// locator); a member sees a dictionary only once it is shared, and may change it only with an
// editor grant; the locator limit is 3.
func TestPronunciationSharing(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			made := mustOK(t, e.do("POST", "/v1/pronunciation-dictionaries/add-from-rules", e.key, map[string]any{"name": "Team words",
				"rules": []any{map[string]any{"type": "alias", "string_to_replace": "TTS", "alias": "text to speech"}}}))
			id := made["id"].(string)
			_, otherKey := e.newUser("other@example.com")
			for _, p := range []string{"/v1/pronunciation-dictionaries/" + id, "/v1/pronunciation-dictionaries/" + id + "/" + made["version_id"].(string) + "/download"} {
				expect(t, e.do("GET", p, otherKey, nil), 404)
			}
			expect(t, e.do("POST", "/v1/pronunciation-dictionaries/"+id+"/add-rules", otherKey, map[string]any{"rules": []any{}}), 404)
			loc := []any{map[string]any{"pronunciation_dictionary_id": id}}
			r := e.do("POST", "/v1/text-to-speech/"+rachel, otherKey, map[string]any{"text": "Hello TTS.", "pronunciation_dictionary_locators": loc})
			if l := fieldError(t, r); l[1] != "pronunciation_dictionary_locators" {
				t.Errorf("another workspace's locator: %v", l)
			}
			four := []any{loc[0], loc[0], loc[0], loc[0]}
			r = e.do("POST", "/v1/text-to-speech/"+rachel, e.key, map[string]any{"text": "Hello TTS.", "pronunciation_dictionary_locators": four})
			if l := fieldError(t, r); l[1] != "pronunciation_dictionary_locators" {
				t.Errorf("four locators: %v", l)
			}
			r = e.do("POST", "/v1/text-to-speech/"+rachel, e.key, map[string]any{"text": "Hello TTS.",
				"pronunciation_dictionary_locators": []any{map[string]any{"pronunciation_dictionary_id": id, "version_id": "nope"}}})
			if l := fieldError(t, r); l[1] != "pronunciation_dictionary_locators" {
				t.Errorf("unknown version: %v", l)
			}

			if err := e.app.DB.SetTier(context.Background(), e.user.WorkspaceID, "enterprise"); err != nil {
				t.Fatal(err)
			}
			m := e.addMember("member@example.com", access.RoleEditor)
			expect(t, e.do("GET", "/v1/pronunciation-dictionaries/"+id, m.key, nil), 404)
			page := mustOK(t, e.do("GET", "/v1/pronunciation-dictionaries", m.key, nil))
			if n := len(page["pronunciation_dictionaries"].([]any)); n != 0 {
				t.Errorf("an unshared dictionary was listed to a member")
			}
			mustOK(t, e.do("POST", "/v1/workspace/resources/"+id+"/share", e.key, map[string]any{"role": "viewer", "resource_type": "pronunciation_dictionary", "user_email": m.user.Email}))
			got := mustOK(t, e.do("GET", "/v1/pronunciation-dictionaries/"+id, m.key, nil))
			if got["permission_on_resource"] != "viewer" {
				t.Errorf("shared as viewer: %v", got["permission_on_resource"])
			}
			expect(t, e.do("POST", "/v1/pronunciation-dictionaries/"+id+"/add-rules", m.key, map[string]any{"rules": []any{}}), 403)
			mustOK(t, e.do("POST", "/v1/workspace/resources/"+id+"/share", e.key, map[string]any{"role": "editor", "resource_type": "pronunciation_dictionary", "user_email": m.user.Email}))
			mustOK(t, e.do("POST", "/v1/pronunciation-dictionaries/"+id+"/add-rules", m.key, map[string]any{"rules": []any{
				map[string]any{"type": "alias", "string_to_replace": "API", "alias": "A P I"}}}))
			meta := mustOK(t, e.do("GET", "/v1/workspace/resources/"+id+"?resource_type=pronunciation_dictionary", e.key, nil))
			if meta["resource_type"] != "pronunciation_dictionary" {
				t.Errorf("resource metadata %v", meta)
			}
			// The member can speak with it now.
			r = e.do("POST", "/v1/text-to-speech/"+rachel, m.key, map[string]any{"text": "Hello TTS.", "pronunciation_dictionary_locators": loc})
			expect(t, r, 200)
		})
	}
}

type timestamped struct {
	Alignment struct {
		Characters []string `json:"characters"`
	} `json:"alignment"`
	NormalizedAlignment struct {
		Characters []string `json:"characters"`
	} `json:"normalized_alignment"`
}

// TestPronunciationInSpeech: an alias rule changes what the recogniser hears (the CEO becomes
// "chief executive officer"), the alignment still spells the user's text, and a phoneme rule
// changes the phonemes spoken — on every TTS route.
func TestPronunciationInSpeech(t *testing.T) {
	e := newEnv(t, "sqlite")
	ctx := context.Background()
	made := mustOK(t, e.do("POST", "/v1/pronunciation-dictionaries/add-from-rules", e.key, map[string]any{"name": "Titles", "rules": []any{
		map[string]any{"type": "alias", "string_to_replace": "ceo", "alias": "chief executive officer", "case_sensitive": false},
		map[string]any{"type": "alias", "string_to_replace": "CFO", "alias": "chief financial officer"},
	}}))
	locs := []any{map[string]any{"pronunciation_dictionary_id": made["id"]}}
	text := "The CEO met the CFO."
	transcribe := func(mp3 []byte) string {
		r := e.postForm("/v1/speech-to-text", "file", mp3, map[string]any{"model_id": "scribe_v1"}, "xi-api-key", e.key)
		expect(t, r, 200)
		var s sttResponse
		if err := json.Unmarshal(r.body, &s); err != nil {
			t.Fatal(err)
		}
		return strings.ToLower(s.Text)
	}
	r := e.do("POST", "/v1/text-to-speech/"+rachel+"?output_format=mp3_44100_128", e.key, map[string]any{"text": text, "pronunciation_dictionary_locators": locs})
	expect(t, r, 200)
	heard := transcribe(r.body)
	found, _ := recognised("chief executive officer chief financial officer", heard)
	if found < 4 {
		t.Errorf("with the alias the recogniser heard %q", heard)
	}
	plain := e.do("POST", "/v1/text-to-speech/"+rachel+"?output_format=mp3_44100_128", e.key, map[string]any{"text": text})
	expect(t, plain, 200)
	if heardPlain := transcribe(plain.body); strings.Contains(heardPlain, "executive") || strings.Contains(heardPlain, "financial") {
		t.Errorf("without the alias the recogniser heard %q", heardPlain)
	}
	t.Logf("with the dictionary: %q", heard)

	// The alignment spells the original text on both timestamp routes.
	for _, path := range []string{"/with-timestamps", "/stream/with-timestamps"} {
		r := e.do("POST", "/v1/text-to-speech/"+rachel+path, e.key, map[string]any{"text": text, "pronunciation_dictionary_locators": locs})
		expect(t, r, 200)
		dec := json.NewDecoder(bytes.NewReader(r.body))
		var chars, normChars []string
		for dec.More() {
			var ts timestamped
			if err := dec.Decode(&ts); err != nil {
				t.Fatal(err)
			}
			chars = append(chars, ts.Alignment.Characters...)
			normChars = append(normChars, ts.NormalizedAlignment.Characters...)
		}
		if got := strings.Join(chars, ""); got != text {
			t.Errorf("%s: alignment spells %q", path, got)
		}
		if got := strings.Join(normChars, ""); !strings.Contains(got, "chief executive officer") {
			t.Errorf("%s: normalized alignment spells %q", path, got)
		}
	}
	expect(t, e.do("POST", "/v1/text-to-speech/"+rachel+"/stream", e.key, map[string]any{"text": text, "pronunciation_dictionary_locators": locs}), 200)

	// Phoneme rules: IPA and ARPAbet, on an espeak voice (sarah) and a flite voice (rachel). The
	// engines' own phoneme reports show the rule's vowel.
	ph := mustOK(t, e.do("POST", "/v1/pronunciation-dictionaries/add-from-rules", e.key, map[string]any{"name": "Tomato", "rules": []any{
		map[string]any{"type": "phoneme", "string_to_replace": "tomato", "phoneme": "təˈmɑːtoʊ", "alphabet": "ipa"},
		map[string]any{"type": "phoneme", "string_to_replace": "potato", "phoneme": "P AH0 T AA1 T OW0", "alphabet": "cmu-arpabet"},
	}}))
	job, err := e.app.Speech.Prepare(ctx, callerOf(e), sarah, ttsBody(t, `{"text":"I like tomato and potato soup.","pronunciation_dictionary_locators":[{"pronunciation_dictionary_id":"`+ph["id"].(string)+`"}]}`), mp3Format(t), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(job.Pronunciations) != 2 {
		t.Fatalf("the job has pronunciations %v", job.Pronunciations)
	}
	for _, voice := range []string{"espeak", "flite"} {
		eng := e.app.Engines[voice]
		v := map[string]string{"espeak": "en-us", "flite": "slt"}[voice]
		res, err := eng.Synthesize(ctx, engineRequest(job, v))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"espeak": "A:", "flite": "aa"}[voice]
		count := 0
		for _, p := range res.Phonemes {
			if p == want {
				count++
			}
		}
		if count < 2 {
			t.Errorf("%s spoke %v: want %q for both tomato and potato", voice, res.Phonemes, want)
		}
	}
}

func callerOf(e *env) *access.Caller {
	return &access.Caller{UserID: e.user.ID, WorkspaceID: e.user.WorkspaceID, Role: access.RoleAdmin}
}

func ttsBody(t *testing.T, s string) *tts.Body {
	t.Helper()
	var b tts.Body
	if err := json.Unmarshal([]byte(s), &b); err != nil {
		t.Fatal(err)
	}
	return &b
}

func mp3Format(t *testing.T) audio.Format {
	t.Helper()
	f, err := audio.ParseFormat("mp3_44100_128")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// engineRequest is the job's whole normalised text, with its pronunciations, for a voice.
func engineRequest(j *tts.Job, voice string) engine.Request {
	return engine.Request{Text: j.Normalized, Voice: voice, Language: "en", Pronunciations: j.Pronunciations}
}
