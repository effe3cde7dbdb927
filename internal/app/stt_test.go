package app_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"timbre/internal/netguard"
	"timbre/internal/plan"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

// sttSentence is spoken by Timbre's own flite voice and transcribed back in the tests.
const sttSentence = "It is a nice day to go for a walk in the park."

// speak makes mp3 speech of text with a premade flite voice, through the TTS route.
func (e *env) speak(text string) []byte {
	e.t.Helper()
	r := e.do("POST", "/v1/text-to-speech/"+rachel+"?output_format=mp3_44100_128", e.key, map[string]any{"text": text})
	expect(e.t, r, 200)
	return r.body
}

// multipartBody builds a multipart form: fields (a key may repeat through a []string) and, when
// file is not nil, the file part named fileField.
func multipartBody(t testing.TB, fileField string, file []byte, fields map[string]any) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		switch v := v.(type) {
		case []string:
			for _, x := range v {
				_ = mw.WriteField(k, x)
			}
		default:
			_ = mw.WriteField(k, v.(string))
		}
	}
	if file != nil {
		fw, _ := mw.CreateFormFile(fileField, "speech.mp3")
		_, _ = fw.Write(file)
	}
	_ = mw.Close()
	return mw.FormDataContentType(), buf.Bytes()
}

// postForm sends a multipart form; auth is extra headers (xi-api-key, Authorization, …).
func (e *env) postForm(path string, fileField string, file []byte, fields map[string]any, auth ...string) *resp {
	e.t.Helper()
	ct, data := multipartBody(e.t, fileField, file, fields)
	req, _ := http.NewRequest("POST", e.srv.URL+path, bytes.NewReader(data))
	req.Header.Set("Content-Type", ct)
	for i := 0; i+1 < len(auth); i += 2 {
		req.Header.Set(auth[i], auth[i+1])
	}
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return &resp{res, body}
}

type sttResponse struct {
	LanguageCode        string  `json:"language_code"`
	LanguageProbability float64 `json:"language_probability"`
	Text                string  `json:"text"`
	Words               []struct {
		Text       string   `json:"text"`
		Type       string   `json:"type"`
		Start      *float64 `json:"start"`
		End        *float64 `json:"end"`
		Logprob    *float64 `json:"logprob"`
		Characters []struct {
			Text string `json:"text"`
		} `json:"characters"`
	} `json:"words"`
	AdditionalFormats []struct {
		RequestedFormat string `json:"requested_format"`
		IsBase64        bool   `json:"is_base64_encoded"`
		Content         string `json:"content"`
	} `json:"additional_formats"`
	TranscriptionID string  `json:"transcription_id"`
	Duration        float64 `json:"audio_duration_secs"`
}

// recognised counts the words of want found in got (case and punctuation aside).
func recognised(want, got string) (found, total int) {
	norm := func(s string) []string {
		return strings.Fields(strings.ToLower(strings.Map(func(r rune) rune {
			if strings.ContainsRune(".,;:!?", r) {
				return -1
			}
			return r
		}, s)))
	}
	have := map[string]bool{}
	for _, w := range norm(got) {
		have[w] = true
	}
	for _, w := range norm(want) {
		total++
		if have[w] {
			found++
		}
	}
	return
}

func TestSpeechToText(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			ctx := context.Background()
			mp3 := e.speak(sttSentence)
			before := e.workspace().CharacterCount

			r := e.postForm("/v1/speech-to-text", "file", mp3, map[string]any{
				"model_id": "scribe_v1", "timestamps_granularity": "character",
				"additional_formats": `[{"format":"srt"},{"format":"docx"},{"format":"txt","include_timestamps":false}]`,
			}, "xi-api-key", e.key)
			expect(t, r, 200)
			var tr sttResponse
			if err := json.Unmarshal(r.body, &tr); err != nil {
				t.Fatal(err)
			}
			if found, total := recognised(sttSentence, tr.Text); found*10 < total*8 {
				t.Fatalf("recognised %d of %d words: %q", found, total, tr.Text)
			}
			if tr.LanguageCode != "eng" || tr.TranscriptionID == "" || tr.Duration < 1.5 || tr.Duration > 6 {
				t.Fatalf("language %q, id %q, duration %v", tr.LanguageCode, tr.TranscriptionID, tr.Duration)
			}
			words, spacings := 0, 0
			for _, w := range tr.Words {
				switch w.Type {
				case "word":
					words++
					if w.Start == nil || w.End == nil || w.Logprob == nil || *w.Logprob > 0 || len(w.Characters) == 0 {
						t.Fatalf("word without times, logprob or characters: %+v", w)
					}
				case "spacing":
					spacings++
				}
			}
			if words < 4 || spacings != words-1 {
				t.Fatalf("%d words, %d spacings", words, spacings)
			}
			if len(tr.AdditionalFormats) != 3 || !strings.HasPrefix(tr.AdditionalFormats[0].Content, "1\n00:00:") ||
				!tr.AdditionalFormats[1].IsBase64 || tr.AdditionalFormats[2].Content != tr.Text+"\n" {
				t.Fatalf("additional formats: %+v", tr.AdditionalFormats)
			}
			if docx, _ := base64.StdEncoding.DecodeString(tr.AdditionalFormats[1].Content); !bytes.HasPrefix(docx, []byte("PK")) {
				t.Fatal("the docx export is not a zip")
			}

			// Charged: the audio's seconds at the free plan's rate, in the ledger.
			want := plan.STTCredits(plan.Get("free"), tr.Duration)
			if got := e.workspace().CharacterCount - before; got != want {
				t.Fatalf("charged %d credits, want %d for %.2f s", got, want, tr.Duration)
			}

			// Kept: GET gives the same transcript; DELETE removes it.
			got := e.do("GET", "/v1/speech-to-text/transcripts/"+tr.TranscriptionID, e.key, nil)
			expect(t, got, 200)
			var again sttResponse
			_ = json.Unmarshal(got.body, &again)
			if again.Text != tr.Text || again.TranscriptionID != tr.TranscriptionID {
				t.Fatalf("stored transcript differs: %q", again.Text)
			}
			other, otherKey := e.newUser("other@example.com")
			_ = other
			expect(t, e.do("GET", "/v1/speech-to-text/transcripts/"+tr.TranscriptionID, otherKey, nil), 404)
			expect(t, e.do("DELETE", "/v1/speech-to-text/transcripts/"+tr.TranscriptionID, e.key, nil), 200)
			expect(t, e.do("GET", "/v1/speech-to-text/transcripts/"+tr.TranscriptionID, e.key, nil), 404)

			// enable_logging=false: transcribed and charged, not kept.
			r = e.postForm("/v1/speech-to-text?enable_logging=false", "file", mp3, map[string]any{"model_id": "scribe_v2"}, "xi-api-key", e.key)
			expect(t, r, 200)
			var unlogged sttResponse
			_ = json.Unmarshal(r.body, &unlogged)
			if _, err := e.app.DB.Transcript(ctx, e.user.WorkspaceID, unlogged.TranscriptionID); err != store.ErrNotFound {
				t.Fatalf("a transcript with enable_logging=false was stored: %v", err)
			}
		})
	}
}

func TestSpeechToTextBadInput(t *testing.T) {
	e := newEnv(t, store.SQLite)
	mp3 := e.speak("Hello there.")
	before := e.workspace().CharacterCount
	rowsBefore := countRows(t, e, "transcripts")
	cases := []struct {
		name   string
		file   []byte
		fields map[string]any
		field  string
	}{
		{"no model", mp3, map[string]any{}, "model_id"},
		{"unknown model", mp3, map[string]any{"model_id": "whisper-9"}, "model_id"},
		{"no file", nil, map[string]any{"model_id": "scribe_v1"}, "file"},
		{"empty file", []byte{}, map[string]any{"model_id": "scribe_v1"}, "file"},
		{"not audio", []byte("this is a text file, not audio at all"), map[string]any{"model_id": "scribe_v1"}, "file"},
		{"truncated mp3", mp3[:200], map[string]any{"model_id": "scribe_v1"}, "file"},
		{"unsupported language", mp3, map[string]any{"model_id": "scribe_v1", "language_code": "xx"}, "language_code"},
		{"bad granularity", mp3, map[string]any{"model_id": "scribe_v1", "timestamps_granularity": "syllable"}, "timestamps_granularity"},
		{"too many speakers", mp3, map[string]any{"model_id": "scribe_v1", "num_speakers": "33"}, "num_speakers"},
		{"unknown entity type", mp3, map[string]any{"model_id": "scribe_v1", "entity_detection": "pii,passwords"}, "entity_detection"},
		{"redaction not detected", mp3, map[string]any{"model_id": "scribe_v1", "entity_detection": "name", "entity_redaction": "all"}, "entity_redaction"},
		{"entities with combined channels", mp3, map[string]any{"model_id": "scribe_v1", "use_multi_channel": "true", "multichannel_output_style": "combined", "entity_detection": "pii"}, "multichannel_output_style"},
		{"speaker roles without diarize", mp3, map[string]any{"model_id": "scribe_v1", "detect_speaker_roles": "true"}, "detect_speaker_roles"},
		{"speaker roles with channels", mp3, map[string]any{"model_id": "scribe_v1", "use_multi_channel": "true", "detect_speaker_roles": "true"}, "detect_speaker_roles"},
		{"threshold without diarize", mp3, map[string]any{"model_id": "scribe_v1", "diarization_threshold": "0.3"}, "diarization_threshold"},
		{"threshold with num_speakers", mp3, map[string]any{"model_id": "scribe_v1", "diarize": "true", "num_speakers": "2", "diarization_threshold": "0.3"}, "diarization_threshold"},
		{"bad export", mp3, map[string]any{"model_id": "scribe_v1", "additional_formats": `[{"format":"mp4"}]`}, "additional_formats"},
		{"file and url", mp3, map[string]any{"model_id": "scribe_v1", "source_url": "https://example.com/a.mp3"}, "file"},
		{"internal url", nil, map[string]any{"model_id": "scribe_v1", "source_url": "http://127.0.0.1:1/a.mp3"}, "source_url"},
		{"long keyterm", mp3, map[string]any{"model_id": "scribe_v1", "keyterms": []string{"one two three four five six"}}, "keyterms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.postForm("/v1/speech-to-text", "file", c.file, c.fields, "xi-api-key", e.key)
			loc := fieldError(t, r)
			if loc[len(loc)-1] != c.field {
				t.Fatalf("422 names %v, want %s: %s", loc, c.field, r.body)
			}
		})
	}
	// A JSON body is not a form.
	expect(t, e.do("POST", "/v1/speech-to-text", e.key, map[string]any{"model_id": "scribe_v1"}), 415)
	// Too short: 50 ms of raw PCM.
	r := e.postForm("/v1/speech-to-text", "file", make([]byte, 1600), map[string]any{"model_id": "scribe_v1", "file_format": "pcm_s16le_16"}, "xi-api-key", e.key)
	if loc := fieldError(t, r); loc[len(loc)-1] != "file" {
		t.Fatalf("short audio: %s", r.body)
	}
	if e.workspace().CharacterCount != before || countRows(t, e, "transcripts") != rowsBefore {
		t.Fatal("bad input charged or stored something")
	}

	// Over the quota: refused with quota_exceeded, nothing charged or stored.
	rawExec(t, e.app.DB, `UPDATE workspaces SET character_count = 9999 WHERE id = ?`, e.user.WorkspaceID)
	r = e.postForm("/v1/speech-to-text", "file", mp3, map[string]any{"model_id": "scribe_v1"}, "xi-api-key", e.key)
	expect(t, r, 401)
	if detailStatus(t, r) != "quota_exceeded" || countRows(t, e, "transcripts") != rowsBefore {
		t.Fatalf("over quota: %s", r.body)
	}
}

func TestOpenAITranscriptions(t *testing.T) {
	e := newEnv(t, store.SQLite)
	mp3 := e.speak(sttSentence)
	r := e.postForm("/v1/audio/transcriptions", "file", mp3, map[string]any{
		"model": "whisper-1", "response_format": "verbose_json", "timestamp_granularities[]": []string{"word", "segment"},
	}, "Authorization", "Bearer "+e.key)
	expect(t, r, 200)
	var v struct {
		Language string  `json:"language"`
		Duration float64 `json:"duration"`
		Text     string  `json:"text"`
		Words    []struct {
			Word  string  `json:"word"`
			Start float64 `json:"start"`
			End   float64 `json:"end"`
		} `json:"words"`
		Segments []map[string]any `json:"segments"`
	}
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatal(err)
	}
	if found, total := recognised(sttSentence, v.Text); found*10 < total*8 || v.Language != "english" || len(v.Words) < 4 || len(v.Segments) == 0 {
		t.Fatalf("verbose_json: %s", r.body)
	}
	r = e.postForm("/v1/audio/transcriptions", "file", mp3, map[string]any{"model": "whisper-1", "response_format": "text"}, "Authorization", "Bearer "+e.key)
	expect(t, r, 200)
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") || strings.TrimSpace(string(r.body)) != strings.TrimSpace(v.Text) {
		t.Fatalf("text format: %q vs %q", r.body, v.Text)
	}
	r = e.postForm("/v1/audio/transcriptions", "file", mp3, map[string]any{"model": "whisper-1", "response_format": "flac"}, "Authorization", "Bearer "+e.key)
	if loc := fieldError(t, r); loc[len(loc)-1] != "response_format" {
		t.Fatalf("bad response_format: %s", r.body)
	}
}

func TestSingleUseToken(t *testing.T) {
	e := newEnv(t, store.SQLite)
	mp3 := e.speak("Hello there.")
	tok := e.do("POST", "/v1/single-use-token/batch_scribe", e.key, nil)
	expect(t, tok, 200)
	token, _ := tok.json(t)["token"].(string)
	if token == "" {
		t.Fatalf("no token: %s", tok.body)
	}
	// Another route does not take it, and leaves it unspent.
	expect(t, e.do("GET", "/v1/history?token="+token, "", nil), 401)
	r := e.postForm("/v1/speech-to-text?token="+token, "file", mp3, map[string]any{"model_id": "scribe_v1"})
	expect(t, r, 200)
	// It works once.
	r = e.postForm("/v1/speech-to-text?token="+token, "file", mp3, map[string]any{"model_id": "scribe_v1"})
	expect(t, r, 401)
	fieldLoc := fieldError(t, e.do("POST", "/v1/single-use-token/sing_along", e.key, nil))
	if fieldLoc[len(fieldLoc)-1] != "token_type" {
		t.Fatalf("unknown token type: %v", fieldLoc)
	}
	// A key without speech_to_text cannot mint a scribe token.
	limited := e.do("POST", "/v1/user/create-api-key", e.key, map[string]any{"name": "tts only", "permissions": []string{"text_to_speech"}})
	expect(t, limited, 200)
	expect(t, e.do("POST", "/v1/single-use-token/batch_scribe", limited.json(t)["xi_api_key"].(string), nil), 401)
}

func countRows(t *testing.T, e *env, table string) int {
	t.Helper()
	var n int
	q := "SELECT COUNT(*) FROM " + table
	var err error
	if e.app.DB.Dialect == store.Postgres {
		err = e.app.DB.PG.QueryRow(context.Background(), q).Scan(&n)
	} else {
		err = e.app.DB.SQLiteDB.QueryRowContext(context.Background(), q).Scan(&n)
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// webhook=true: the request is accepted at once, and the transcript arrives at the workspace's
// speech-to-text webhook, signed, with the request's metadata; the charge is the same.
func TestSpeechToTextWebhook(t *testing.T) {
	e := newEnv(t, store.SQLite)
	got := make(chan []byte, 4)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Header.Get("ElevenLabs-Signature") != "" {
			got <- b
		}
	}))
	defer hook.Close()
	g := &netguard.Guard{AllowPrivate: true}
	e.app.Webhooks.Guard, e.app.Webhooks.AllowHTTP = g, true
	e.app.Webhooks.HTTP = g.Client(netguard.ClientOptions{Timeout: 5 * time.Second})
	mp3 := e.speak(sttSentence)

	// Without a webhook listening for speech_to_text, webhook=true is refused.
	r := e.postForm("/v1/speech-to-text", "file", mp3, map[string]any{"model_id": "scribe_v1", "webhook": "true"}, "xi-api-key", e.key)
	if loc := fieldError(t, r); loc[len(loc)-1] != "webhook" {
		t.Fatalf("no webhook: %s", r.body)
	}
	wh := e.do("POST", "/v1/workspace/webhooks", e.key, map[string]any{"settings": map[string]any{
		"auth_type": "hmac", "name": "transcripts", "webhook_url": hook.URL + "/stt"}})
	expect(t, wh, 200)
	id := wh.json(t)["webhook_id"].(string)
	expect(t, e.do("PATCH", "/v1/workspace/webhooks/"+id, e.key, map[string]any{"is_disabled": false, "name": "transcripts", "events": []string{"speech_to_text"}}), 200)
	if err := e.app.StartJobs(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer e.app.StopJobs()

	before := e.workspace().CharacterCount
	r = e.postForm("/v1/speech-to-text", "file", mp3, map[string]any{"model_id": "scribe_v1", "webhook": "true",
		"webhook_metadata": `{"order":42}`}, "xi-api-key", e.key)
	expect(t, r, http.StatusAccepted)
	acc := r.json(t)
	tid, _ := acc["transcription_id"].(string)
	if tid == "" || acc["request_id"] == "" || acc["message"] == "" {
		t.Fatalf("accepted: %s", r.body)
	}
	select {
	case body := <-got:
		var ev struct {
			Type string `json:"type"`
			Data struct {
				RequestID     string          `json:"request_id"`
				Transcription sttResponse     `json:"transcription"`
				Metadata      json.RawMessage `json:"webhook_metadata"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type != "speech_to_text_transcription" || ev.Data.Transcription.TranscriptionID != tid || string(ev.Data.Metadata) != `{"order":42}` {
			t.Fatalf("delivered: %s", body)
		}
		if found, total := recognised(sttSentence, ev.Data.Transcription.Text); found*10 < total*8 {
			t.Fatalf("delivered transcript: %q", ev.Data.Transcription.Text)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no webhook delivery within 60 s")
	}
	expect(t, e.do("GET", "/v1/speech-to-text/transcripts/"+tid, e.key, nil), 200)
	if e.workspace().CharacterCount <= before {
		t.Fatal("the asynchronous transcription was not charged")
	}
	if n := countRows(t, e, "river_job WHERE kind = 'stt_transcribe'"); n != 1 {
		t.Fatalf("%d transcription jobs", n)
	}

	// use_multi_channel: the job keeps the channels apart and delivers one transcript per channel.
	stereo := mergeChannels(t, e.speakPCM(rachel, leftSentence, 0), e.speakPCM(adam, rightSentence, 0))
	r = e.postForm("/v1/speech-to-text", "file", stereo, map[string]any{"model_id": "scribe_v1", "webhook": "true", "use_multi_channel": "true"}, "xi-api-key", e.key)
	expect(t, r, http.StatusAccepted)
	tid, _ = r.json(t)["transcription_id"].(string)
	select {
	case body := <-got:
		var ev struct {
			Data struct {
				Transcription multichannelResponse `json:"transcription"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Fatal(err)
		}
		m := ev.Data.Transcription
		if m.TranscriptionID != tid || len(m.Transcripts) != 2 || *m.Transcripts[1].ChannelIndex != 1 {
			t.Fatalf("delivered: %s", body)
		}
		checkHeard(t, "delivered channel 0", m.Transcripts[0].Text, leftSentence, rightOnly)
		checkHeard(t, "delivered channel 1", m.Transcripts[1].Text, rightSentence, leftOnly)
	case <-time.After(60 * time.Second):
		t.Fatal("no multichannel webhook delivery within 60 s")
	}
}
