package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
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
