package app_test

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/plan"
	"timbre/internal/store"
	"timbre/internal/sts"
	"timbre/internal/testdb"
	"timbre/internal/voiceprint"
)

const (
	stsSentence = "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background."
)

// speakAs is mp3 speech of text by a premade voice, through the TTS route.
func (e *env) speakAs(voiceID, text string) []byte {
	e.t.Helper()
	r := e.do("POST", "/v1/text-to-speech/"+voiceID+"?output_format=mp3_44100_128", e.key, map[string]any{"text": text})
	expect(e.t, r, 200)
	return r.body
}

// TestSpeechToSpeech: a male recording converted to Rachel's voice comes back as mp3 of the same
// duration (within 1 %) whose median pitch is within 15 % of Rachel's, charged at 1,000 credits a
// minute (per second) in the ledger, kept as a history item with source STS whose download is
// the same audio; the stream route does the same chunked; GET /v1/models lists the STS models.
func TestSpeechToSpeech(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			ctx := context.Background()
			mp3 := e.speakAs(adam, stsSentence)
			in, rate, err := audio.Decode(ctx, mp3)
			if err != nil {
				t.Fatal(err)
			}
			seconds := float64(len(in)) / float64(rate)
			before := e.workspace().CharacterCount

			r := e.postForm("/v1/speech-to-speech/"+rachel, "audio", mp3,
				map[string]any{"model_id": "eleven_multilingual_sts_v2", "voice_settings": `{"stability":0.5,"similarity_boost":0.75}`, "seed": "7"},
				"xi-api-key", e.key)
			expect(t, r, 200)
			id := r.Header.Get("history-item-id")
			if ct := r.Header.Get("Content-Type"); ct != "audio/mpeg" || id == "" || r.Header.Get("request-id") == "" {
				t.Fatalf("content type %q, history item %q, request id %q", ct, id, r.Header.Get("request-id"))
			}
			out, outRate, err := audio.Decode(ctx, r.body)
			if err != nil {
				t.Fatal(err)
			}
			got := float64(len(out)) / float64(outRate)
			if math.Abs(got-seconds) > 0.01*seconds {
				t.Fatalf("converted audio lasts %.3f s, the recording %.3f s", got, seconds)
			}
			want := plan.STSCredits(seconds)
			if want != int64(math.Ceil(math.Ceil(seconds)*1000/60)) {
				t.Fatalf("STSCredits(%.2f) = %d, not 1,000 a minute per started second", seconds, want)
			}
			if got := e.workspace().CharacterCount - before; got != want || r.Header.Get("character-cost") != strconv.FormatInt(want, 10) {
				t.Fatalf("charged %d credits (header %s), want %d for %.2f s", got, r.Header.Get("character-cost"), want, seconds)
			}

			// Rachel's pitch as the converter measures it: her voice saying the fixed passage.
			target := e.printOf(rachel, sts.Passage)
			source := e.printOfPCM(in, rate)
			conv := e.printOfPCM(out, outRate)
			dev := math.Abs(conv.F0Median-target.F0Median) / target.F0Median
			t.Logf("F0 median: recording %.1f Hz, Rachel %.1f Hz, converted %.1f Hz (%.1f %% off)", source.F0Median, target.F0Median, conv.F0Median, 100*dev)
			if dev > 0.15 {
				t.Errorf("converted median F0 %.1f Hz is %.0f %% from Rachel's %.1f Hz", conv.F0Median, 100*dev, target.F0Median)
			}
			// The history lists it with source STS; its audio is the response.
			h := e.do("GET", "/v1/history?source=STS", e.key, nil)
			expect(t, h, 200)
			var page struct {
				History []struct {
					HistoryItemID string `json:"history_item_id"`
					Source        string `json:"source"`
					VoiceID       string `json:"voice_id"`
					ModelID       string `json:"model_id"`
				} `json:"history"`
			}
			if err := json.Unmarshal(h.body, &page); err != nil {
				t.Fatal(err)
			}
			if len(page.History) != 1 || page.History[0].HistoryItemID != id || page.History[0].Source != "STS" ||
				page.History[0].VoiceID != rachel || page.History[0].ModelID != "eleven_multilingual_sts_v2" {
				t.Fatalf("STS history: %s", h.body)
			}
			dl := e.do("GET", "/v1/history/"+id+"/audio", e.key, nil)
			expect(t, dl, 200)
			if string(dl.body) != string(r.body) {
				t.Fatal("the history audio differs from the response")
			}

			// The stream route, raw PCM in, pcm out, not logged.
			before = e.workspace().CharacterCount
			pcm16 := audio.PCMBytes(audio.Resample(in, rate, 16000))
			s := e.postForm("/v1/speech-to-speech/"+rachel+"/stream?output_format=pcm_16000&enable_logging=false", "audio", pcm16,
				map[string]any{"file_format": "pcm_s16le_16", "model_id": "eleven_english_sts_v2", "remove_background_noise": "true"}, "xi-api-key", e.key)
			expect(t, s, 200)
			if len(s.TransferEncoding) == 0 || s.TransferEncoding[0] != "chunked" || s.Header.Get("history-item-id") != "" {
				t.Fatalf("stream: transfer %v, history item %q", s.TransferEncoding, s.Header.Get("history-item-id"))
			}
			if n := len(audio.PCMSamples(s.body)); math.Abs(float64(n)/16000-seconds) > 0.01*seconds {
				t.Fatalf("streamed %d samples (%.3f s) for %.3f s", n, float64(n)/16000, seconds)
			}
			if got := e.workspace().CharacterCount - before; got != want {
				t.Fatalf("the stream charged %d credits, want %d", got, want)
			}

			// GET /v1/models lists the two STS models as voice conversion models.
			m := e.do("GET", "/v1/models", e.key, nil)
			expect(t, m, 200)
			var models []struct {
				ModelID              string `json:"model_id"`
				CanDoTextToSpeech    bool   `json:"can_do_text_to_speech"`
				CanDoVoiceConversion bool   `json:"can_do_voice_conversion"`
			}
			_ = json.Unmarshal(m.body, &models)
			found := 0
			for _, mo := range models {
				if mo.CanDoVoiceConversion {
					found++
					if mo.CanDoTextToSpeech || !strings.HasSuffix(mo.ModelID, "_sts_v2") {
						t.Errorf("model %+v", mo)
					}
				}
			}
			if found != len(sts.Models) {
				t.Errorf("%d voice conversion models listed, want %d", found, len(sts.Models))
			}
		})
	}
}

// printOf measures a premade voice saying text (through the TTS route, as 16 kHz PCM).
func (e *env) printOf(voiceID, text string) *voiceprint.Print {
	e.t.Helper()
	return e.printOfPCM(e.speakPCM(voiceID, text, 0), 16000)
}

func (e *env) printOfPCM(pcm []int16, rate int) *voiceprint.Print {
	e.t.Helper()
	p, err := voiceprint.Analyse(engine.PCM{Samples: pcm, SampleRate: rate})
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// TestSpeechToSpeechBadInput: every unusable request is a 4xx naming the field (or the voice);
// none charges or stores anything.
func TestSpeechToSpeechBadInput(t *testing.T) {
	e := newEnv(t, store.SQLite)
	ctx := context.Background()
	mp3 := e.speakAs(adam, stsSentence)
	// A voice of another workspace.
	other, _ := e.newUser("other@example.com")
	theirs := store.Voice{ID: store.NewID(), WorkspaceID: other.WorkspaceID, Name: "Theirs", Category: "cloned", Engine: "flite",
		EngineVoice: "slt", Language: "en", Prosody: "{}", Labels: "{}"}
	if err := e.app.DB.InTx(ctx, func(tx *store.Tx) error { return tx.CreateVoice(ctx, theirs) }); err != nil {
		t.Fatal(err)
	}
	before := e.workspace().CharacterCount
	rowsBefore := countRows(t, e, "history")
	cases := []struct {
		name   string
		path   string
		file   []byte
		fields map[string]any
		field  string // "" for a 404 unknown voice
	}{
		{"no audio", "", nil, map[string]any{}, "audio"},
		{"empty", "", []byte{}, nil, "audio"},
		{"not audio", "", []byte("this is a text file, not audio at all"), nil, "audio"},
		{"truncated mp3", "", mp3[:200], nil, "audio"},
		{"too short", "", silentWAV(0.05, 16000), nil, "audio"},
		{"silence", "", silentWAV(2, 16000), nil, "audio"},
		{"odd pcm", "", make([]byte, 3201), map[string]any{"file_format": "pcm_s16le_16"}, "audio"},
		{"bad file_format", "", mp3, map[string]any{"file_format": "flac"}, "file_format"},
		{"bad model", "", mp3, map[string]any{"model_id": "eleven_multilingual_v2"}, "model_id"},
		{"settings not JSON", "", mp3, map[string]any{"voice_settings": "{stability"}, "voice_settings"},
		{"settings out of range", "", mp3, map[string]any{"voice_settings": `{"stability":3}`}, "voice_settings.stability"},
		{"bad seed", "", mp3, map[string]any{"seed": "-4"}, "seed"},
		{"bad noise flag", "", mp3, map[string]any{"remove_background_noise": "maybe"}, "remove_background_noise"},
		{"bad output format", "?output_format=wav_1", mp3, nil, "output_format"},
		{"bad latency", "?optimize_streaming_latency=9", mp3, nil, "optimize_streaming_latency"},
		{"unknown voice", "/nosuchvoice", mp3, nil, ""},
		{"another workspace's voice", "/" + theirs.ID, mp3, nil, ""},
	}
	for _, c := range cases {
		for _, stream := range []string{"", "/stream"} {
			t.Run(c.name+stream, func(t *testing.T) {
				voicePath, query := "/"+rachel, c.path
				if strings.HasPrefix(c.path, "/") {
					voicePath, query = c.path, ""
				}
				r := e.postForm("/v1/speech-to-speech"+voicePath+stream+query, "audio", c.file, c.fields, "xi-api-key", e.key)
				if c.field == "" {
					expect(t, r, 404)
					return
				}
				loc := fieldError(t, r)
				if loc[len(loc)-1] != c.field {
					t.Fatalf("422 names %v, want %s: %s", loc, c.field, r.body)
				}
			})
		}
	}
	// Oversize: refused as it arrives.
	big := make([]byte, sts.DefaultMaxUpload+1)
	expect(t, e.postForm("/v1/speech-to-speech/"+rachel, "audio", big, nil, "xi-api-key", e.key), 413)
	expect(t, e.do("POST", "/v1/speech-to-speech/"+rachel, e.key, map[string]any{"audio": "x"}), 415)
	if e.workspace().CharacterCount != before || countRows(t, e, "history") != rowsBefore {
		t.Fatal("bad input charged or stored something")
	}
}

// TestSpeechToSpeechToStoredVoiceprint: a workspace voice (cloned or designed) is converted to by
// its stored voiceprint: the output's median pitch lands within 15 % of the print's.
func TestSpeechToSpeechToStoredVoiceprint(t *testing.T) {
	e := newEnv(t, store.SQLite)
	ctx := context.Background()
	mp3 := e.speakAs(adam, stsSentence)
	in, rate, err := audio.Decode(ctx, mp3)
	if err != nil {
		t.Fatal(err)
	}
	source := e.printOfPCM(in, rate)
	want := voiceprint.Print{F0Median: 1.35 * source.F0Median, Formants: [3]float64{1.05 * source.Formants[0], 1.05 * source.Formants[1], 1.05 * source.Formants[2]}}
	raw, _ := json.Marshal(want)
	mine := store.Voice{ID: store.NewID(), WorkspaceID: e.user.WorkspaceID, Name: "My clone", Category: "cloned", Engine: "flite",
		EngineVoice: "rms", Language: "en", Prosody: "{}", Labels: "{}", Voiceprint: string(raw)}
	if err := e.app.DB.InTx(ctx, func(tx *store.Tx) error { return tx.CreateVoice(ctx, mine) }); err != nil {
		t.Fatal(err)
	}
	r := e.postForm("/v1/speech-to-speech/"+mine.ID, "audio", mp3, nil, "xi-api-key", e.key)
	expect(t, r, 200)
	out, outRate, err := audio.Decode(ctx, r.body)
	if err != nil {
		t.Fatal(err)
	}
	got := e.printOfPCM(out, outRate)
	dev := math.Abs(got.F0Median-want.F0Median) / want.F0Median
	t.Logf("F0 median: recording %.1f Hz, stored print %.1f Hz, converted %.1f Hz (%.1f %% off)", source.F0Median, want.F0Median, got.F0Median, 100*dev)
	if dev > 0.15 {
		t.Fatalf("converted median F0 %.1f Hz is %.0f %% from the print's %.1f Hz", got.F0Median, 100*dev, want.F0Median)
	}
}
