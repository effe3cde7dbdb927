package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"timbre/internal/metering"
	"timbre/internal/store"
)

// longText is 2,349 characters of sentences.
var longText = func() string {
	s := strings.Repeat("The quick brown fox jumps over the lazy dog near the quiet river bank. ", 40)
	return s[:2349]
}()

// A client that reads part of a long stream and hangs up pays for the characters whose audio was
// sent and nothing more; the history item keeps that audio and the text it speaks.
func TestCutStreamChargesWhatWasDelivered(t *testing.T) {
	if n := utf8.RuneCountInString(longText); n != 2349 {
		t.Fatalf("text is %d characters", n)
	}
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			ctx := context.Background()
			const model, factor = "eleven_flash_v2_5", 0.5 // half the characters' cost
			fullCost := int64(math.Ceil(2349 * factor))
			body, _ := json.Marshal(map[string]any{"text": longText, "model_id": model})
			req, _ := http.NewRequest("POST", e.srv.URL+"/v1/text-to-speech/"+sarah+"/stream?output_format=pcm_22050", bytes.NewReader(body))
			req.Header.Set("xi-api-key", e.key)
			req.Header.Set("Content-Type", "application/json")
			res, err := e.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != 200 || res.Header.Get("character-cost") != "1175" {
				t.Fatalf("status %d, character-cost %q", res.StatusCode, res.Header.Get("character-cost"))
			}
			historyID := res.Header.Get("history-item-id")
			// About 2.5 minutes of 16-bit audio at 22.05 kHz is ~6.6 MB; read 1 MB and hang up.
			read, err := io.CopyN(io.Discard, res.Body, 1<<20)
			if err != nil {
				t.Fatalf("read %d: %v", read, err)
			}
			res.Body.Close()

			var h *store.HistoryItem
			deadline := time.Now().Add(30 * time.Second)
			for {
				h, err = e.app.DB.History(ctx, e.user.WorkspaceID, historyID)
				if err != nil || h.State != store.StateProcessing || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if err != nil || h.State != store.StateCreated {
				t.Fatalf("history item after the hang-up: %+v, %v", h, err)
			}
			chars := int64(utf8.RuneCountInString(h.Text))
			charged := e.workspace().CharacterCount
			t.Logf("client read %d bytes; %d of 2349 characters delivered, %d of %d credits charged", read, chars, charged, fullCost)
			if !strings.HasPrefix(longText, h.Text) || chars == 0 || chars >= 2349 {
				t.Fatalf("history text is %d characters, want a proper prefix of the request's", chars)
			}
			if want := int64(math.Ceil(float64(chars) * factor)); charged != want || h.CharTo-h.CharFrom != want {
				t.Fatalf("charged %d (history %d..%d) for %d delivered characters, want %d", charged, h.CharFrom, h.CharTo, chars, want)
			}
			rows, err := metering.Usage(ctx, e.app.DB, e.user.WorkspaceID, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), metering.TTS, store.UsageByProduct)
			if err != nil || len(rows) != 1 || rows[0].Units != chars || rows[0].Credits != charged {
				t.Fatalf("ledger usage %+v %v, want %d characters and %d credits", rows, err, chars, charged)
			}
			// The item keeps the audio that was sent: at least what the client read, and its
			// alignment covers the delivered text.
			r := e.do("GET", "/v1/history/"+historyID+"/audio", e.key, nil)
			expect(t, r, 200)
			if int64(len(r.body)) < read {
				t.Fatalf("history audio %d bytes, the client read %d", len(r.body), read)
			}
			// About 12 characters per second of speech: the audio matches the delivered text.
			if secs := float64(len(r.body)) / (2 * 22050); secs < float64(chars)/40 || secs > float64(chars)/5 {
				t.Fatalf("%.1f s of audio for %d characters", secs, chars)
			}
			item := e.do("GET", "/v1/history/"+historyID, e.key, nil).json(t)
			if item["text"] != h.Text {
				t.Fatalf("history text %q", item["text"])
			}
		})
	}
}

// GET /v1/usage/character-stats sums the ledger: per day, per model, cumulative; bad input is a
// 422 naming the field.
func TestCharacterStatsFromLedger(t *testing.T) {
	e := newEnv(t, store.SQLite)
	for _, b := range []map[string]any{
		{"text": "Twenty characters!!!"}, // 20 credits
		{"text": "Forty characters of flash text, halved.!", "model_id": "eleven_flash_v2_5"}, // 40 characters, 20 credits
	} {
		expect(t, e.do("POST", "/v1/text-to-speech/"+sarah+"?output_format=pcm_16000", e.key, b), 200)
	}
	now := time.Now().UTC()
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	window := func(extra string) string {
		return "/v1/usage/character-stats?start_unix=" + itoa(day.Add(-24*time.Hour).UnixMilli()) + "&end_unix=" + itoa(day.Add(24*time.Hour).UnixMilli()) + extra
	}
	type stats struct {
		Time  []int64              `json:"time"`
		Usage map[string][]float64 `json:"usage"`
	}
	get := func(extra string) stats {
		t.Helper()
		r := e.do("GET", window(extra), e.key, nil)
		expect(t, r, 200)
		var s stats
		if err := json.Unmarshal(r.body, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := get("")
	if len(s.Time) != 2 || s.Time[1] != day.UnixMilli() || len(s.Usage["All"]) != 2 || s.Usage["All"][0] != 0 || s.Usage["All"][1] != 40 {
		t.Fatalf("credits per day: %+v", s)
	}
	if s := get("&metric=tts_characters&aggregation_interval=cumulative"); len(s.Time) != 1 || s.Usage["All"][0] != 60 {
		t.Fatalf("characters in total: %+v", s)
	}
	if s := get("&breakdown_type=model&aggregation_interval=cumulative&metric=request_count"); s.Usage["eleven_multilingual_v2"][0] != 1 || s.Usage["eleven_flash_v2_5"][0] != 1 {
		t.Fatalf("requests per model: %+v", s)
	}
	if s := get("&breakdown_type=user&include_workspace_metrics=true&aggregation_interval=month"); s.Usage[e.user.ID][len(s.Time)-1] != 40 {
		t.Fatalf("credits per user per month: %+v", s)
	}
	for _, c := range []struct{ query, field string }{
		{"/v1/usage/character-stats?end_unix=1", "start_unix"},
		{"/v1/usage/character-stats?start_unix=5&end_unix=1", "end_unix"},
		{window("&breakdown_type=region"), "breakdown_type"},
		{window("&breakdown_type=user"), "breakdown_type"},
		{window("&metric=ttfb_avg"), "metric"},
		{"/v1/usage/character-stats?start_unix=0&end_unix=" + itoa(now.UnixMilli()) + "&aggregation_interval=hour", "aggregation_interval"},
	} {
		r := e.do("GET", c.query, e.key, nil)
		expect(t, r, http.StatusUnprocessableEntity)
		if f := fieldError(t, r); len(f) < 2 || f[1] != c.field {
			t.Errorf("%s: error names %v, want %s", c.query, f, c.field)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
