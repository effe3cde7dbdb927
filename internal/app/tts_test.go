package app_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/store"
	"timbre/internal/tts"
)

// rms is the loudness of samples on a 0–1 scale.
func rms(samples []int16) float64 {
	var sum float64
	for _, s := range samples {
		sum += float64(s) * float64(s)
	}
	return math.Sqrt(sum/float64(max(1, len(samples)))) / 32768
}

// checkSpeech decodes audio and asserts it sounds like speech: a plausible duration and loudness.
func checkSpeech(t *testing.T, data []byte, minSec, maxSec float64) float64 {
	t.Helper()
	samples, rate, err := audio.Decode(context.Background(), data)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	dur := float64(len(samples)) / float64(rate)
	if dur < minSec || dur > maxSec {
		t.Fatalf("duration %.2fs, want %.1f–%.1fs", dur, minSec, maxSec)
	}
	if l := rms(samples); l < 0.02 {
		t.Fatalf("loudness %.4f: silence, not speech", l)
	}
	return dur
}

func TestTextToSpeechConvert(t *testing.T) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			text := "Hello from Timbre. The meeting is at 3:30 pm on May 3rd."
			for _, voiceID := range []string{rachel, sarah} {
				r := e.do("POST", "/v1/text-to-speech/"+voiceID, e.key, map[string]any{"text": text})
				expect(t, r, 200)
				if ct := r.Header.Get("Content-Type"); ct != "audio/mpeg" {
					t.Errorf("content type %q", ct)
				}
				if r.Header.Get("request-id") == "" || r.Header.Get("history-item-id") == "" {
					t.Errorf("missing request-id/history-item-id headers: %v", r.Header)
				}
				if got := r.Header.Get("character-cost"); got != strconv.Itoa(utf8.RuneCountInString(text)) {
					t.Errorf("character-cost %s, want %d", got, utf8.RuneCountInString(text))
				}
				_, rate, bitrate, codec, err := audio.Probe(context.Background(), r.body)
				if err != nil || codec != "mp3" || rate != 44100 || bitrate != 128000 {
					t.Errorf("probe: codec %s rate %d bitrate %d err %v", codec, rate, bitrate, err)
				}
				checkSpeech(t, r.body, 2, 10)
				// The history item holds the same audio.
				h := e.do("GET", "/v1/history/"+r.Header.Get("history-item-id")+"/audio", e.key, nil)
				expect(t, h, 200)
				if !bytes.Equal(h.body, r.body) {
					t.Error("history audio differs from the response")
				}
			}
			ws := e.workspace()
			if want := int64(2 * utf8.RuneCountInString(text)); ws.CharacterCount != want {
				t.Errorf("character_count %d, want %d", ws.CharacterCount, want)
			}
		})
	}
}

func TestOutputFormats(t *testing.T) {
	e := newEnv(t, store.SQLite)
	// Higher-quality formats need a higher tier.
	if err := e.app.DB.SetTier(context.Background(), e.user.WorkspaceID, "pro"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pcm_16000", "wav_22050", "ulaw_8000", "opus_48000_64", "mp3_22050_32", "pcm_44100"} {
		r := e.do("POST", "/v1/text-to-speech/"+sarah+"?output_format="+name, e.key, map[string]any{"text": "Testing one two three."})
		expect(t, r, 200)
		f, _ := audio.ParseFormat(name)
		switch f.Codec {
		case audio.CodecPCM:
			samples := audio.PCMSamples(r.body)
			dur := float64(len(samples)) / float64(f.SampleRate)
			if dur < 0.8 || dur > 5 || rms(samples) < 0.02 {
				t.Errorf("%s: %.2fs loudness %.3f", name, dur, rms(samples))
			}
		case audio.CodecULaw:
			if dur := float64(len(r.body)) / 8000; dur < 0.8 || dur > 5 {
				t.Errorf("%s: %.2fs", name, dur)
			}
		default:
			_, rate, _, _, err := audio.Probe(context.Background(), r.body)
			if err != nil || rate != f.SampleRate {
				t.Errorf("%s: rate %d err %v", name, rate, err)
			}
			checkSpeech(t, r.body, 0.8, 5)
		}
	}
}

func TestTierLimitsOutputFormat(t *testing.T) {
	e := newEnv(t, store.SQLite)
	r := e.do("POST", "/v1/text-to-speech/"+sarah+"?output_format=mp3_44100_192", e.key, map[string]any{"text": "Hi there."})
	expect(t, r, http.StatusForbidden)
	if s := detailStatus(t, r); s != "only_for_creator+" {
		t.Errorf("status %q", s)
	}
	if e.workspace().CharacterCount != 0 || e.historyCount(e.key) != 0 {
		t.Error("a refused request changed something")
	}
}

func TestStreamSendsAudioBeforeTheEnd(t *testing.T) {
	e := newEnv(t, store.SQLite)
	text := strings.Repeat("This sentence is spoken while the next one is still being made. ", 8)
	body, _ := json.Marshal(map[string]any{"text": text})
	req, _ := http.NewRequest("POST", e.srv.URL+"/v1/text-to-speech/"+sarah+"/stream?output_format=pcm_22050", bytes.NewReader(body))
	req.Header.Set("xi-api-key", e.key)
	req.Header.Set("Content-Type", "application/json")
	res, err := e.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("history-item-id") == "" {
		t.Fatalf("status %d headers %v", res.StatusCode, res.Header)
	}
	// Reads come back in pieces; the first piece must be far less than the whole.
	first := make([]byte, 1<<20)
	n, err := io.ReadAtLeast(res.Body, first, 1)
	if err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	total := n + len(rest)
	if n >= total/2 {
		t.Errorf("first read %d of %d bytes: not streamed sentence by sentence", n, total)
	}
	samples := audio.PCMSamples(append(first[:n], rest...))
	if dur := float64(len(samples)) / 22050; dur < 10 || rms(samples) < 0.02 {
		t.Errorf("streamed %.1fs loudness %.3f", dur, rms(samples))
	}
}

// The second sentence of an mp3 stream waits for the encoder's first bytes; a first sentence too
// short for ffmpeg to write anything must not stall the stream. The history keeps the same bytes.
func TestStreamMP3ShortFirstSentence(t *testing.T) {
	e := newEnv(t, store.SQLite)
	for _, text := range []string{"Oh. Then a much longer second sentence follows the first one.", ". Hello there, this is the second part."} {
		start := time.Now()
		r := e.do("POST", "/v1/text-to-speech/"+sarah+"/stream?output_format=mp3_44100_128", e.key, map[string]any{"text": text})
		expect(t, r, 200)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q took %s", text, d)
		}
		checkSpeech(t, r.body, 1, 10)
		h := e.do("GET", "/v1/history/"+r.Header.Get("history-item-id")+"/audio", e.key, nil)
		expect(t, h, 200)
		if !bytes.Equal(h.body, r.body) {
			t.Errorf("%q: history audio differs from the stream", text)
		}
	}
}

func checkAlignment(t *testing.T, al map[string]any, text string, maxT float64) {
	t.Helper()
	chars := al["characters"].([]any)
	starts := al["character_start_times_seconds"].([]any)
	ends := al["character_end_times_seconds"].([]any)
	if len(chars) != utf8.RuneCountInString(text) || len(starts) != len(chars) || len(ends) != len(chars) {
		t.Fatalf("alignment lengths %d/%d/%d for %d characters", len(chars), len(starts), len(ends), utf8.RuneCountInString(text))
	}
	var sb strings.Builder
	prev := 0.0
	for i := range chars {
		sb.WriteString(chars[i].(string))
		s, e := starts[i].(float64), ends[i].(float64)
		if s < prev-1e-9 || e < s || e > maxT+0.01 {
			t.Fatalf("char %d %q: start %.3f end %.3f (prev start %.3f, audio %.3f)", i, chars[i], s, e, prev, maxT)
		}
		prev = s
	}
	if sb.String() != text {
		t.Fatalf("alignment characters %q, want %q", sb.String(), text)
	}
}

func TestWithTimestamps(t *testing.T) {
	e := newEnv(t, store.SQLite)
	text := "Dr. Smith paid $12.50 for 3 books. Then he left!"
	for _, voiceID := range []string{rachel, sarah} {
		r := e.do("POST", "/v1/text-to-speech/"+voiceID+"/with-timestamps", e.key, map[string]any{"text": text})
		expect(t, r, 200)
		m := r.json(t)
		data, err := base64.StdEncoding.DecodeString(m["audio_base64"].(string))
		if err != nil {
			t.Fatal(err)
		}
		dur := checkSpeech(t, data, 2, 12)
		checkAlignment(t, m["alignment"].(map[string]any), text, dur)
		norm := m["normalized_alignment"].(map[string]any)
		var sb strings.Builder
		for _, c := range norm["characters"].([]any) {
			sb.WriteString(c.(string))
		}
		if !strings.Contains(sb.String(), "twelve dollars and fifty cents") || !strings.Contains(sb.String(), "Doctor") {
			t.Errorf("normalized text %q", sb.String())
		}
		checkAlignment(t, norm, sb.String(), dur)
		// The history item keeps the alignment.
		h := e.do("GET", "/v1/history/"+r.Header.Get("history-item-id"), e.key, nil)
		expect(t, h, 200)
		if h.json(t)["alignments"] == nil {
			t.Error("history item has no alignments")
		}
	}
}

func TestStreamWithTimestamps(t *testing.T) {
	e := newEnv(t, store.SQLite)
	text := "First sentence here. Second one follows! And a third?"
	r := e.do("POST", "/v1/text-to-speech/"+sarah+"/stream/with-timestamps?output_format=pcm_22050", e.key, map[string]any{"text": text})
	expect(t, r, 200)
	sc := bufio.NewScanner(bytes.NewReader(r.body))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var pcm []byte
	merged := map[string]any{"characters": []any{}, "character_start_times_seconds": []any{}, "character_end_times_seconds": []any{}}
	lines := 0
	for sc.Scan() {
		lines++
		var chunk map[string]any
		if err := json.Unmarshal(sc.Bytes(), &chunk); err != nil {
			t.Fatalf("line %d is not JSON: %v", lines, err)
		}
		b, _ := base64.StdEncoding.DecodeString(chunk["audio_base64"].(string))
		pcm = append(pcm, b...)
		if al, ok := chunk["alignment"].(map[string]any); ok {
			for _, k := range []string{"characters", "character_start_times_seconds", "character_end_times_seconds"} {
				merged[k] = append(merged[k].([]any), al[k].([]any)...)
			}
		}
	}
	if lines < 3 {
		t.Errorf("%d lines: want one per sentence", lines)
	}
	dur := float64(len(pcm)/2) / 22050
	checkAlignment(t, merged, text, dur)
}

func TestEnableLoggingFalseStoresNothingButCharges(t *testing.T) {
	e := newEnv(t, store.SQLite)
	r := e.do("POST", "/v1/text-to-speech/"+sarah+"?enable_logging=false", e.key, map[string]any{"text": "Private words."})
	expect(t, r, 200)
	if r.Header.Get("history-item-id") != "" {
		t.Error("history-item-id sent for an unlogged request")
	}
	if n := e.historyCount(e.key); n != 0 {
		t.Errorf("%d history items, want 0", n)
	}
	if c := e.workspace().CharacterCount; c != int64(len("Private words.")) {
		t.Errorf("character_count %d", c)
	}
	if ok, _ := e.app.Blob.Exists(context.Background(), "history"); ok {
		t.Error("blob written")
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	e := newEnv(t, store.SQLite)
	cases := []struct {
		name, path string
		body       any
		code       int
		status     string // application error status, or "" for a 422
		loc        string
	}{
		{"empty text", "/v1/text-to-speech/" + sarah, map[string]any{"text": "   "}, 422, "", "text"},
		{"missing body", "/v1/text-to-speech/" + sarah, "", 422, "", "body"},
		{"bad json", "/v1/text-to-speech/" + sarah, "{", 422, "", "body"},
		{"text wrong type", "/v1/text-to-speech/" + sarah, `{"text": 5}`, 422, "", "text"},
		{"unknown voice", "/v1/text-to-speech/nope", map[string]any{"text": "Hi."}, 404, "voice_not_found", ""},
		{"unknown model", "/v1/text-to-speech/" + sarah, map[string]any{"text": "Hi.", "model_id": "nope"}, 422, "", "model_id"},
		{"bad format", "/v1/text-to-speech/" + sarah + "?output_format=mp3_1_1", map[string]any{"text": "Hi."}, 422, "", "output_format"},
		{"wav on stream", "/v1/text-to-speech/" + sarah + "/stream?output_format=wav_16000", map[string]any{"text": "Hi."}, 422, "", "output_format"},
		{"stability", "/v1/text-to-speech/" + sarah, map[string]any{"text": "Hi.", "voice_settings": map[string]any{"stability": 2}}, 422, "", "voice_settings.stability"},
		{"speed", "/v1/text-to-speech/" + sarah, map[string]any{"text": "Hi.", "voice_settings": map[string]any{"speed": 3}}, 422, "", "voice_settings.speed"},
		{"normalization", "/v1/text-to-speech/" + sarah, map[string]any{"text": "Hi.", "apply_text_normalization": "maybe"}, 422, "", "apply_text_normalization"},
		{"language", "/v1/text-to-speech/" + sarah, map[string]any{"text": "Hi.", "language_code": "xx"}, 422, "", "language_code"},
		{"too long", "/v1/text-to-speech/" + sarah, map[string]any{"text": strings.Repeat("a", 2501)}, 400, "max_character_limit_exceeded", ""},
		{"english-only model", "/v1/text-to-speech/" + sarah, map[string]any{"text": "Hola.", "model_id": "eleven_flash_v2", "language_code": "es"}, 400, "unsupported_language", ""},
		{"oversized body", "/v1/text-to-speech/" + sarah, `{"text":"` + strings.Repeat("a", 2<<20) + `"}`, 413, "payload_too_large", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do("POST", c.path, e.key, c.body)
			if c.status == "" {
				loc := fieldError(t, r)
				if got := loc[len(loc)-1]; got != c.loc {
					t.Errorf("loc %v, want …%s", loc, c.loc)
				}
				return
			}
			expect(t, r, c.code)
			if s := detailStatus(t, r); s != c.status {
				t.Errorf("status %q, want %q", s, c.status)
			}
		})
	}
	if e.workspace().CharacterCount != 0 || e.historyCount(e.key) != 0 {
		t.Error("bad requests changed the account")
	}
}

func TestAuthErrors(t *testing.T) {
	e := newEnv(t, store.SQLite)
	for _, key := range []string{"", "sk_wrong"} {
		r := e.do("POST", "/v1/text-to-speech/"+sarah, key, map[string]any{"text": "Hi."})
		expect(t, r, 401)
		if s := detailStatus(t, r); s != "invalid_api_key" {
			t.Errorf("status %q", s)
		}
		expect(t, e.do("GET", "/v1/history", key, nil), 401)
	}
}

func TestQuotaExceeded(t *testing.T) {
	e := newEnv(t, store.SQLite)
	// Spend all but 5 characters of the free plan's 10,000.
	spend(t, e, 9995)
	r := e.do("POST", "/v1/text-to-speech/"+sarah, e.key, map[string]any{"text": "Six ch"})
	expect(t, r, 401)
	if s := detailStatus(t, r); s != "quota_exceeded" {
		t.Errorf("status %q", s)
	}
	expect(t, e.do("POST", "/v1/text-to-speech/"+sarah, e.key, map[string]any{"text": "Five."}), 200)
	ws := e.workspace()
	if ws.CharacterCount != 10000 {
		t.Errorf("character_count %d, want 10000", ws.CharacterCount)
	}
}

// spend charges n characters to the env's workspace directly.
func spend(t *testing.T, e *env, n int64) {
	t.Helper()
	ctx := context.Background()
	err := e.app.DB.InTx(ctx, func(tx *store.Tx) error {
		_, _, err := tx.Charge(ctx, e.user.WorkspaceID, n, -1, time.Now())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// 50 parallel requests against a nearly spent allowance never overspend it: through the API
// (where the plan's concurrency limit turns some away) and through the charge path itself.
func TestConcurrentRequestsNeverOverspend(t *testing.T) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			if err := e.app.DB.SetTier(context.Background(), e.user.WorkspaceID, "scale_2024_08_10"); err != nil {
				t.Fatal(err)
			}
			const limit, text = 11_000_000, "Exactly twenty chars"
			spend(t, e, limit-7*20) // room for exactly 7 requests
			var wg sync.WaitGroup
			var mu sync.Mutex
			codes := map[int]int{}
			for range 50 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := e.do("POST", "/v1/text-to-speech/"+sarah+"?output_format=pcm_16000", e.key, map[string]any{"text": text})
					mu.Lock()
					codes[r.StatusCode]++
					mu.Unlock()
				}()
			}
			wg.Wait()
			ws := e.workspace()
			if ws.CharacterCount > limit {
				t.Fatalf("overspent: %d > %d", ws.CharacterCount, limit)
			}
			if got := e.historyCount(e.key); int64(got) != 7-(limit-ws.CharacterCount)/20 || codes[200] != got {
				t.Errorf("codes %v, %d history rows, count %d", codes, got, ws.CharacterCount)
			}
			if codes[200]+codes[401]+codes[429] != 50 {
				t.Errorf("unexpected statuses %v", codes)
			}
			t.Logf("API: %v (200 ok, 401 quota_exceeded, 429 concurrency); count %d of %d", codes, ws.CharacterCount, limit)

			// The charge path alone (charge + history row), without the concurrency limit in the way:
			// a second workspace on the free plan with room for exactly 7 requests.
			u2, key2 := e.newUser("second@example.com")
			e2 := *e
			e2.user = u2
			spend(t, &e2, 10_000-7*20)
			if ok := chargeInParallel(t, &e2, 50); ok != 7 {
				t.Errorf("%d of 50 parallel charges succeeded, want exactly 7", ok)
			}
			if c := e2.workspace().CharacterCount; c != 10_000 {
				t.Errorf("character_count %d, want 10000", c)
			}
			if n := e.historyCount(key2); n != 7 {
				t.Errorf("%d history rows, want 7", n)
			}
		})
	}
}

// chargeInParallel runs n concurrent Begin calls (charge + history row) and returns how many succeeded.
func chargeInParallel(t *testing.T, e *env, n int) int {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	f, _ := audio.ParseFormat("mp3_44100_128")
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &access.Caller{UserID: e.user.ID, WorkspaceID: e.user.WorkspaceID}
			j, err := e.app.Speech.Prepare(context.Background(), c, sarah, &tts.Body{Text: "Exactly twenty chars"}, f, true)
			if err != nil {
				t.Error(err)
				return
			}
			if err := e.app.Speech.Begin(context.Background(), j); err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return ok
}
