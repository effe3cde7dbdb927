package app_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/store"
	"timbre/internal/testdb"
	"timbre/internal/voiceprint"
)

type dialogueSegment struct {
	VoiceID    string  `json:"voice_id"`
	Start      float64 `json:"start_time_seconds"`
	End        float64 `json:"end_time_seconds"`
	CharStart  int     `json:"character_start_index"`
	CharEnd    int     `json:"character_end_index"`
	InputIndex int     `json:"dialogue_input_index"`
}

type dialogueAlignment struct {
	Characters []string  `json:"characters"`
	Starts     []float64 `json:"character_start_times_seconds"`
	Ends       []float64 `json:"character_end_times_seconds"`
}

type dialogueResult struct {
	AudioBase64   string             `json:"audio_base64"`
	Alignment     *dialogueAlignment `json:"alignment"`
	Normalized    *dialogueAlignment `json:"normalized_alignment"`
	VoiceSegments []dialogueSegment  `json:"voice_segments"`
}

var dialogueLines = []map[string]string{
	{"text": "Good morning! Did you sleep well last night?", "voice_id": rachel},
	{"text": "Not really, the neighbours were playing music until two.", "voice_id": adam},
	{"text": "Oh no. [sighs] That sounds exhausting.", "voice_id": rachel},
}

func dialogueJoined() string {
	var texts []string
	for _, l := range dialogueLines {
		texts = append(texts, l["text"])
	}
	return strings.Join(texts, " ")
}

func medianF0(t *testing.T, pcm []int16, rate int) float64 {
	t.Helper()
	p, err := voiceprint.Analyse(engine.PCM{Samples: pcm, SampleRate: rate})
	if err != nil {
		t.Fatalf("analyse: %v", err)
	}
	return p.F0Median
}

// TestTextToDialogue: three lines by two voices (a female and a male) become one audio, charged
// once for their characters and kept as one history item with its lines. Each voice segment
// carries its own voice's pitch; the segments match the audio (speech inside, quiet turn gaps of
// 250–450 ms between them, the last ending with the audio); the alignment covers the lines'
// joined text, tags included; the same seed gives the same timing. The other three routes
// (audio, streamed audio, streamed JSON lines) answer the same dialogue.
func TestTextToDialogue(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			ctx := context.Background()
			body := map[string]any{"inputs": dialogueLines, "seed": 42}
			joined := dialogueJoined()
			chars := int64(utf8.RuneCountInString(joined) - (len(dialogueLines) - 1))
			before := e.workspace().CharacterCount
			historyBefore := e.historyCount(e.key)

			r := e.do("POST", "/v1/text-to-dialogue/with-timestamps?output_format=pcm_16000", e.key, body)
			expect(t, r, 200)
			var res dialogueResult
			if err := json.Unmarshal(r.body, &res); err != nil {
				t.Fatal(err)
			}
			raw, err := base64.StdEncoding.DecodeString(res.AudioBase64)
			if err != nil {
				t.Fatal(err)
			}
			pcm := audio.PCMSamples(raw)
			const rate = 16000
			dur := float64(len(pcm)) / rate
			if got := e.workspace().CharacterCount - before; got != chars || r.Header.Get("character-cost") != strconv.FormatInt(chars, 10) {
				t.Fatalf("charged %d, want %d (header %s)", got, chars, r.Header.Get("character-cost"))
			}

			// Segments: one per line, in order, tiling the audio with quiet gaps between them.
			segs := res.VoiceSegments
			if len(segs) != len(dialogueLines) {
				t.Fatalf("%d segments: %+v", len(segs), segs)
			}
			at := 0
			for i, s := range segs {
				text := dialogueLines[i]["text"]
				if s.InputIndex != i || s.VoiceID != dialogueLines[i]["voice_id"] || s.CharStart != at || s.CharEnd != at+utf8.RuneCountInString(text) {
					t.Fatalf("segment %d: %+v", i, s)
				}
				at = s.CharEnd + 1
				if s.End <= s.Start {
					t.Fatalf("segment %d is empty: %+v", i, s)
				}
				speech := pcm[int(s.Start*rate):min(int(s.End*rate), len(pcm))]
				if rms(speech) < 0.01 {
					t.Errorf("segment %d has no speech energy (rms %.4f)", i, rms(speech))
				}
				if i > 0 {
					gap := s.Start - segs[i-1].End
					if gap < 0.25-0.002 || gap > 0.45+0.002 {
						t.Errorf("turn gap before line %d: %.3f s", i, gap)
					}
					quiet := pcm[int(segs[i-1].End*rate)+1 : int(s.Start*rate)-1]
					if rms(quiet) > 0.001 {
						t.Errorf("gap before line %d is not quiet (rms %.4f)", i, rms(quiet))
					}
				}
			}
			if last := segs[len(segs)-1].End; math.Abs(last-dur) > 0.05 {
				t.Errorf("last segment ends at %.3f s, the audio at %.3f s", last, dur)
			}

			// Each segment has its own voice's pitch: nearer that voice's own F0 than the other's.
			const refSentence = "This is how my voice sounds when I read a sentence aloud."
			ref := map[string]float64{}
			for _, v := range []string{rachel, adam} {
				ref[v] = medianF0(t, e.speakPCM(v, refSentence, 0), rate)
			}
			if ref[rachel] < ref[adam]*1.3 {
				t.Fatalf("reference voices not apart: rachel %.0f Hz, adam %.0f Hz", ref[rachel], ref[adam])
			}
			for i, s := range segs {
				f0 := medianF0(t, pcm[int(s.Start*rate):min(int(s.End*rate), len(pcm))], rate)
				own, other := ref[s.VoiceID], ref[rachel]+ref[adam]-ref[s.VoiceID]
				if math.Abs(math.Log(f0/own)) >= math.Abs(math.Log(f0/other)) {
					t.Errorf("segment %d (%s) has F0 %.0f Hz: own voice %.0f Hz, other %.0f Hz", i, s.VoiceID, f0, own, other)
				}
			}

			// The alignment covers the joined text, tags included, in time order within the audio.
			for name, al := range map[string]*dialogueAlignment{"alignment": res.Alignment} {
				if al == nil || strings.Join(al.Characters, "") != joined || len(al.Starts) != len(al.Characters) || len(al.Ends) != len(al.Characters) {
					t.Fatalf("%s does not cover the joined text: %+v", name, al)
				}
				for i := range al.Starts {
					if al.Starts[i] > al.Ends[i] || al.Ends[i] > dur+0.01 || i > 0 && al.Starts[i] < al.Starts[i-1]-0.001 {
						t.Fatalf("%s character %d (%q): %.3f–%.3f", name, i, al.Characters[i], al.Starts[i], al.Ends[i])
					}
				}
			}
			if res.Normalized == nil || len(res.Normalized.Characters) == 0 {
				t.Error("no normalized alignment")
			}
			// [sighs] is not spoken: it holds a stretch of time (a short silence without TagSounds).
			tag := strings.Index(joined, "[sighs]")
			if s, e := res.Alignment.Starts[tag], res.Alignment.Ends[tag+6]; e-s < 0.2 {
				t.Errorf("[sighs] spans %.3f–%.3f s", s, e)
			}

			// One history item, with the lines (beside the two reference voices' items).
			id := r.Header.Get("history-item-id")
			if n := e.historyCount(e.key); n != historyBefore+3 || id == "" {
				t.Fatalf("history has %d items (was %d), id %q", n, historyBefore, id)
			}
			list := e.do("GET", "/v1/history", e.key, nil)
			expect(t, list, 200)
			var page struct {
				History []struct {
					ID       string `json:"history_item_id"`
					Text     string `json:"text"`
					Dialogue []struct {
						Text, VoiceID, VoiceName string
					} `json:"dialogue"`
				} `json:"history"`
			}
			if err := json.Unmarshal(list.body, &page); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, it := range page.History {
				if it.ID != id {
					continue
				}
				found = true
				if len(it.Dialogue) != 3 || it.Dialogue[1].Text != dialogueLines[1]["text"] || it.Text != "" {
					t.Fatalf("history item: %+v", it)
				}
			}
			if !found {
				t.Fatal("the dialogue is not in GET /v1/history")
			}
			item := e.do("GET", "/v1/history/"+id, e.key, nil)
			expect(t, item, 200)
			var one struct {
				Dialogue []map[string]string `json:"dialogue"`
			}
			_ = json.Unmarshal(item.body, &one)
			if len(one.Dialogue) != 3 || one.Dialogue[1]["voice_id"] != adam || one.Dialogue[1]["voice_name"] != "Adam" {
				t.Fatalf("history item's dialogue: %v", one.Dialogue)
			}
			audioRes := e.do("GET", "/v1/history/"+id+"/audio", e.key, nil)
			expect(t, audioRes, 200)
			if !bytes.Equal(audioRes.body, raw) {
				t.Errorf("history audio differs from the response (%d vs %d bytes)", len(audioRes.body), len(raw))
			}

			// The same seed gives the same timing.
			again := e.do("POST", "/v1/text-to-dialogue/with-timestamps?output_format=pcm_16000&enable_logging=false", e.key, body)
			expect(t, again, 200)
			var res2 dialogueResult
			_ = json.Unmarshal(again.body, &res2)
			for i := range segs {
				if i > 0 && math.Abs((res2.VoiceSegments[i].Start-res2.VoiceSegments[i-1].End)-(segs[i].Start-segs[i-1].End)) > 0.0015 {
					t.Errorf("gap %d differs under the same seed: %+v vs %+v", i, res2.VoiceSegments, segs)
				}
			}

			// Pronunciation dictionaries apply to each line: the alias is spoken, the alignment
			// still spells the line as written.
			dict := mustOK(t, e.do("POST", "/v1/pronunciation-dictionaries/add-from-rules", e.key, map[string]any{"name": "Titles",
				"rules": []any{map[string]any{"type": "alias", "string_to_replace": "CEO", "alias": "chief executive officer"}}}))
			withDict := e.do("POST", "/v1/text-to-dialogue/with-timestamps?output_format=pcm_16000&enable_logging=false", e.key, map[string]any{
				"inputs":                            []map[string]string{{"text": "Is the CEO in?", "voice_id": rachel}, {"text": "The CEO left.", "voice_id": adam}},
				"pronunciation_dictionary_locators": []any{map[string]any{"pronunciation_dictionary_id": dict["id"], "version_id": dict["version_id"]}}})
			expect(t, withDict, 200)
			var dres dialogueResult
			if err := json.Unmarshal(withDict.body, &dres); err != nil || dres.Alignment == nil || dres.Normalized == nil {
				t.Fatalf("dialogue with a dictionary: %v %.300s", err, withDict.body)
			}
			written, spoken := strings.Join(dres.Alignment.Characters, ""), strings.Join(dres.Normalized.Characters, "")
			if strings.Count(written, "CEO") != 2 || strings.Count(strings.ToLower(spoken), "chief executive officer") != 2 {
				t.Errorf("dialogue with a dictionary: written %q, spoken %q", written, spoken)
			}

			// Audio: mp3 of about the same length, one more history item.
			plain := e.do("POST", "/v1/text-to-dialogue", e.key, body)
			expect(t, plain, 200)
			if plain.Header.Get("history-item-id") == "" || plain.Header.Get("Content-Type") != "audio/mpeg" {
				t.Fatalf("headers %v", plain.Header)
			}
			checkSpeech(t, plain.body, dur-0.2, dur+0.2)

			// Streamed audio.
			st := e.do("POST", "/v1/text-to-dialogue/stream?output_format=pcm_16000", e.key, body)
			expect(t, st, 200)
			if got := float64(len(audio.PCMSamples(st.body))) / rate; math.Abs(got-dur) > 0.1 {
				t.Errorf("streamed %.3f s, whole %.3f s", got, dur)
			}

			// Streamed JSON: a line per dialogue line with its segment and characters.
			sj := e.do("POST", "/v1/text-to-dialogue/stream/with-timestamps?output_format=mp3_44100_128", e.key, body)
			expect(t, sj, 200)
			sc := bufio.NewScanner(bytes.NewReader(sj.body))
			sc.Buffer(make([]byte, 1<<20), 16<<20)
			var mp3 []byte
			var streamedChars []string
			var streamedSegs []dialogueSegment
			for sc.Scan() {
				var chunk dialogueResult
				if err := json.Unmarshal(sc.Bytes(), &chunk); err != nil {
					t.Fatalf("line is not JSON: %v", err)
				}
				b, _ := base64.StdEncoding.DecodeString(chunk.AudioBase64)
				mp3 = append(mp3, b...)
				if chunk.Alignment != nil {
					streamedChars = append(streamedChars, chunk.Alignment.Characters...)
				}
				streamedSegs = append(streamedSegs, chunk.VoiceSegments...)
			}
			if strings.Join(streamedChars, "") != joined || len(streamedSegs) != 3 {
				t.Fatalf("streamed %d segments, text %q", len(streamedSegs), strings.Join(streamedChars, ""))
			}
			checkSpeech(t, mp3, dur-0.2, dur+0.2)
			// The dialogue with a dictionary is charged its written characters ("Is the CEO in?The CEO left.").
			if got, want := e.workspace().CharacterCount-before, 5*chars+2*int64(len(refSentence))+27; got != want {
				t.Errorf("six dialogues and two references charged %d, want %d", got, want)
			}
			_ = ctx
		})
	}
}

// TestTextToDialogueBadInput: each bad request is refused naming its field, on every route,
// and nothing is charged or stored.
func TestTextToDialogueBadInput(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			line := func(text, voice string) map[string]string { return map[string]string{"text": text, "voice_id": voice} }
			many := make([]map[string]string, 51)
			for i := range many {
				many[i] = line("Hi.", rachel)
			}
			long := []map[string]string{line(strings.Repeat("a", 1500), rachel), line(strings.Repeat("b", 1501), adam)}
			locators := make([]map[string]string, 4)
			for i := range locators {
				locators[i] = map[string]string{"pronunciation_dictionary_id": "d", "version_id": "v"}
			}
			cases := []struct {
				name string
				body map[string]any
				loc  []any
			}{
				{"over 50 lines", map[string]any{"inputs": many}, []any{"body", "inputs"}},
				{"over 3000 characters", map[string]any{"inputs": long}, []any{"body", "inputs"}},
				{"empty text", map[string]any{"inputs": []map[string]string{line("Hi.", rachel), line("  ", adam)}}, []any{"body", "inputs", 1.0, "text"}},
				{"no lines", map[string]any{"inputs": []map[string]string{}}, []any{"body", "inputs"}},
				{"over 3 locators", map[string]any{"inputs": []map[string]string{line("Hi.", rachel)}, "pronunciation_dictionary_locators": locators}, []any{"body", "pronunciation_dictionary_locators"}},
				{"stability", map[string]any{"inputs": []map[string]string{line("Hi.", rachel)}, "settings": map[string]any{"stability": 2}}, []any{"body", "settings", "stability"}},
			}
			before := e.workspace().CharacterCount
			hist := e.historyCount(e.key)
			for _, path := range []string{"/v1/text-to-dialogue", "/v1/text-to-dialogue/stream", "/v1/text-to-dialogue/with-timestamps", "/v1/text-to-dialogue/stream/with-timestamps"} {
				for _, c := range cases {
					loc := fieldError(t, e.do("POST", path, e.key, c.body))
					if len(loc) != len(c.loc) {
						t.Fatalf("%s %s: loc %v, want %v", path, c.name, loc, c.loc)
					}
					for i := range loc {
						if loc[i] != c.loc[i] {
							t.Fatalf("%s %s: loc %v, want %v", path, c.name, loc, c.loc)
						}
					}
				}
				r := e.do("POST", path, e.key, map[string]any{"inputs": []map[string]string{line("Hi.", rachel), line("Who?", "no-such-voice")}})
				expect(t, r, 404)
				if detailStatus(t, r) != "voice_not_found" || !strings.Contains(string(r.body), "inputs[1].voice_id") {
					t.Fatalf("%s unknown voice: %s", path, r.body)
				}
				expect(t, e.do("POST", path+"?output_format=mp3_1_2", e.key, map[string]any{"inputs": []map[string]string{line("Hi.", rachel)}}), 422)
			}
			if e.workspace().CharacterCount != before || e.historyCount(e.key) != hist {
				t.Fatal("bad input charged or stored something")
			}
			if countRows(t, e, "history") != hist {
				t.Fatal("bad input left history rows")
			}
			// A language no engine speaks is refused by the TTS checks each line goes through.
			loc := fieldError(t, e.do("POST", "/v1/text-to-dialogue", e.key, map[string]any{"inputs": dialogueLines, "language_code": "xx"}))
			if loc[len(loc)-1] != "language_code" {
				t.Fatalf("language_code: loc %v", loc)
			}
			// Over the quota: quota_exceeded, nothing charged or kept.
			rawExec(t, e.app.DB, `UPDATE workspaces SET character_count = 9999 WHERE id = ?`, e.user.WorkspaceID)
			r := e.do("POST", "/v1/text-to-dialogue/stream", e.key, map[string]any{"inputs": dialogueLines})
			expect(t, r, 401)
			if detailStatus(t, r) != "quota_exceeded" || e.workspace().CharacterCount != 9999 || countRows(t, e, "history") != hist {
				t.Fatalf("over quota: %s", r.body)
			}
		})
	}
}

// toneTags is a TagSounds that answers [laughs] with half a second of a 300 Hz tone (sfx's
// RenderTag plugs in here in production).
type toneTags struct{ calls []string }

func (tt *toneTags) RenderTag(name string, rate int, seed uint64) ([]float32, bool) {
	tt.calls = append(tt.calls, name)
	if name != "laughs" {
		return nil, false
	}
	out := make([]float32, rate/2)
	for i := range out {
		out[i] = 0.3 * float32(math.Sin(2*math.Pi*300*float64(i)/float64(rate)))
	}
	return out, true
}

// TestTextToDialogueTags: bracketed tags are not spoken: [long pause] is a second of silence,
// [laughs] is TagSounds' audio, [whispers] makes the rest of the line whispered (espeak-ng's
// whisper variant, or a quieter, breathier filter for flite), [excited] changes the prosody; the
// alignment still covers every character, tags included.
func TestTextToDialogueTags(t *testing.T) {
	e := newEnv(t, store.SQLite)
	tones := &toneTags{}
	e.app.Dialogue.Tags = tones
	const rate = 16000
	run := func(lines []map[string]string) (dialogueResult, []int16, string) {
		t.Helper()
		r := e.do("POST", "/v1/text-to-dialogue/with-timestamps?output_format=pcm_16000&enable_logging=false", e.key, map[string]any{"inputs": lines, "seed": 1})
		expect(t, r, 200)
		var res dialogueResult
		if err := json.Unmarshal(r.body, &res); err != nil {
			t.Fatal(err)
		}
		raw, _ := base64.StdEncoding.DecodeString(res.AudioBase64)
		var texts []string
		for _, l := range lines {
			texts = append(texts, l["text"])
		}
		joined := strings.Join(texts, " ")
		if strings.Join(res.Alignment.Characters, "") != joined {
			t.Fatalf("alignment %q, text %q", strings.Join(res.Alignment.Characters, ""), joined)
		}
		return res, audio.PCMSamples(raw), joined
	}
	span := func(res dialogueResult, joined, tag string) (float64, float64) {
		i := utf8.RuneCountInString(joined[:strings.Index(joined, tag)])
		return res.Alignment.Starts[i], res.Alignment.Ends[i+utf8.RuneCountInString(tag)-1]
	}
	res, pcm, joined := run([]map[string]string{
		{"text": "Wait for it. [long pause] Now! [laughs] That was fun.", "voice_id": rachel},
		{"text": "[excited] Again, again!", "voice_id": sarah},
	})
	s, en := span(res, joined, "[long pause]")
	if en-s < 0.99 || rms(pcm[int(s*rate):int(en*rate)]) > 0.001 {
		t.Errorf("[long pause] spans %.3f–%.3f s (rms %.4f): want a second of silence", s, en, rms(pcm[int(s*rate):int(en*rate)]))
	}
	s, en = span(res, joined, "[laughs]")
	if en-s < 0.49 || rms(pcm[int(s*rate):int(en*rate)]) < 0.1 {
		t.Errorf("[laughs] spans %.3f–%.3f s (rms %.4f): want TagSounds' half second", s, en, rms(pcm[int(s*rate):int(en*rate)]))
	}
	if !slices.Contains(tones.calls, "laughs") || slices.Contains(tones.calls, "excited") {
		t.Errorf("TagSounds asked for %v", tones.calls)
	}

	// Whispered lines have (almost) no voiced frames left (espeak-ng: its whisper variant;
	// flite: the filter, which also makes them quieter).
	voiced := func(pcm []int16) float64 {
		p, err := voiceprint.Analyse(engine.PCM{Samples: pcm, SampleRate: rate})
		if err != nil {
			return 0
		}
		return p.SpeechSeconds
	}
	for _, v := range []string{rachel, sarah} {
		text := "Keep this between the two of us, please."
		_, plain, _ := run([]map[string]string{{"text": text, "voice_id": v}})
		_, whispered, _ := run([]map[string]string{{"text": "[whispers] " + text, "voice_id": v}})
		t.Logf("voice %s: whispered rms %.4f voiced %.2f s, plain rms %.4f voiced %.2f s", v, rms(whispered), voiced(whispered), rms(plain), voiced(plain))
		if len(whispered) < len(plain)/2 {
			t.Errorf("voice %s: whispered %d samples, plain %d", v, len(whispered), len(plain))
		}
		if v == rachel && rms(whispered) > 0.8*rms(plain) {
			t.Errorf("flite whisper is not quieter: rms %.4f, plain %.4f", rms(whispered), rms(plain))
		}
		if voiced(whispered) > voiced(plain)/2 {
			t.Errorf("voice %s: the whisper is still voiced: %.2f s, plain %.2f s", v, voiced(whispered), voiced(plain))
		}
	}
}

// TestTextToDialogueCutStream: when a line fails after earlier lines went out (here a voice whose
// engine voice does not exist), the stream ends there, the delivered lines are charged, the rest
// refunded, and no history item is kept; the whole-audio route charges nothing.
func TestTextToDialogueCutStream(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			ctx := context.Background()
			if err := e.app.DB.InTx(ctx, func(tx *store.Tx) error {
				return tx.CreateVoice(ctx, store.Voice{ID: "broken1", WorkspaceID: e.user.WorkspaceID, Name: "Broken", Category: "cloned",
					Labels: "{}", Engine: "flite", EngineVoice: "no_such_flite_voice", Language: "en", Prosody: "{}", CreatedAt: 1})
			}); err != nil {
				t.Fatal(err)
			}
			first := "The first line is fine."
			body := map[string]any{"inputs": []map[string]string{{"text": first, "voice_id": rachel}, {"text": "This one fails.", "voice_id": "broken1"}}}
			before, hist := e.workspace().CharacterCount, countRows(t, e, "history")

			r := e.do("POST", "/v1/text-to-dialogue", e.key, body)
			if r.StatusCode < 500 || e.workspace().CharacterCount != before || countRows(t, e, "history") != hist {
				t.Fatalf("whole route: status %d, charged %d: %s", r.StatusCode, e.workspace().CharacterCount-before, r.body)
			}

			r = e.do("POST", "/v1/text-to-dialogue/stream/with-timestamps?output_format=pcm_16000", e.key, body)
			expect(t, r, 200)
			var lines []dialogueResult
			sc := bufio.NewScanner(bytes.NewReader(r.body))
			sc.Buffer(make([]byte, 1<<20), 16<<20)
			for sc.Scan() {
				var c dialogueResult
				if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
					t.Fatal(err)
				}
				lines = append(lines, c)
			}
			if len(lines) != 1 || len(lines[0].VoiceSegments) != 1 || lines[0].VoiceSegments[0].VoiceID != rachel {
				t.Fatalf("cut stream sent %d lines: %+v", len(lines), lines)
			}
			if got := e.workspace().CharacterCount - before; got != int64(len(first)) {
				t.Fatalf("cut stream charged %d, want %d (the delivered line)", got, len(first))
			}
			if countRows(t, e, "history") != hist {
				t.Fatal("a cut dialogue left a history row")
			}
		})
	}
}
