package app_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"timbre/internal/engine/enginetest"
	"time"

	"timbre/internal/plan"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestSpeechToTextSpeakerRoles: a support call in two of Timbre's voices — the agent (Adam,
// flite rms) opens "Thank you for calling … how can I help you" and the customer (Rachel, flite
// slt) asks about an account — transcribed with diarize and detect_speaker_roles: every word's
// speaker is "agent" or "customer" (no speaker_N left), most words the role of who said them,
// and the charge (workspace count and ledger alike) is the diarized transcription's plus 10 %.
func TestSpeechToTextSpeakerRoles(t *testing.T) {
	const adam = "pNInz6obpgDQGcFmaJgB"
	turns := []struct{ voice, role, text string }{
		{adam, "agent", "Thank you for calling Timbre. How can I help you today?"},
		{rachel, "customer", "Hello. I would like to change the address on my account."},
		{adam, "agent", "Let me pull up your account. Is there anything else I can help you with?"},
		{rachel, "customer", "No, that is all. Thank you very much."},
	}
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			const rate, pause = 16000, 0.6
			type span struct {
				start, end float64
				role       string
			}
			var pcm []byte
			var spans []span
			for _, tn := range turns {
				r := e.do("POST", "/v1/text-to-speech/"+tn.voice+"?output_format=pcm_16000", e.key, map[string]any{"text": tn.text})
				expect(t, r, 200)
				pcm = append(pcm, make([]byte, 2*int(pause*rate))...)
				start := float64(len(pcm)) / 2 / rate
				pcm = append(pcm, r.body...)
				spans = append(spans, span{start, float64(len(pcm)) / 2 / rate, tn.role})
			}
			pcm = append(pcm, make([]byte, 2*int(pause*rate))...)
			said := func(start, end float64) string { // the turn nearest the word's middle
				mid, best, gap := (start+end)/2, "", 1e9
				for _, s := range spans {
					if dd := max(s.start-mid, mid-s.end, 0); dd < gap {
						best, gap = s.role, dd
					}
				}
				return best
			}

			transcribe := func(fields map[string]any) (sttResponse, []string, int64) {
				t.Helper()
				before := e.workspace().CharacterCount
				fields["model_id"], fields["file_format"], fields["diarize"], fields["tag_audio_events"] = "scribe_v1", "pcm_s16le_16", "true", "false"
				r := e.postForm("/v1/speech-to-text", "file", pcm, fields, "xi-api-key", e.key)
				expect(t, r, 200)
				var tr sttResponse
				var speakers struct {
					Words []struct {
						SpeakerID *string `json:"speaker_id"`
					} `json:"words"`
				}
				if err := json.Unmarshal(r.body, &tr); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(r.body, &speakers); err != nil {
					t.Fatal(err)
				}
				ids := make([]string, len(speakers.Words))
				for i, w := range speakers.Words {
					if w.SpeakerID == nil {
						t.Fatalf("entry %d (%q) has no speaker_id", i, tr.Words[i].Text)
					}
					ids[i] = *w.SpeakerID
				}
				return tr, ids, e.workspace().CharacterCount - before
			}

			plain, plainIDs, plainCost := transcribe(map[string]any{})
			if !slices.Contains(plainIDs, "speaker_0") || !slices.Contains(plainIDs, "speaker_1") {
				t.Fatalf("diarization alone found speakers %v", unique(plainIDs))
			}
			tr, ids, cost := transcribe(map[string]any{"detect_speaker_roles": "true"})
			t.Logf("%s: %q", d, tr.Text)
			// A decoder's earlier utterances can change a word or two of its next result (the
			// two transcriptions may meet different decoders), so a couple of words may differ.
			if d := enginetest.EditDistance(enginetest.Words(tr.Text), enginetest.Words(plain.Text)); d > 3 {
				t.Fatalf("roles changed %d words: %q vs %q", d, tr.Text, plain.Text)
			}
			if got := unique(ids); len(got) != 2 || !slices.Contains(got, "agent") || !slices.Contains(got, "customer") {
				t.Fatalf("speaker ids %v, want agent and customer", got)
			}
			right, words := 0, 0
			for i, w := range tr.Words {
				if w.Type != "word" {
					continue
				}
				words++
				if ids[i] == said(*w.Start, *w.End) {
					right++
				}
			}
			t.Logf("%s: %d of %d words have the role of who said them", d, right, words)
			if words < 20 || right*10 < words*9 {
				t.Fatalf("%d of %d words with the right role; want ≥ 90 %%", right, words)
			}
			// The agent opened the call: the first word is the agent's.
			if ids[0] != "agent" {
				t.Fatalf("the opening %q is %s's", tr.Words[0].Text, ids[0])
			}

			base := plan.STTCredits(plan.Get("free"), tr.Duration)
			if plainCost != base {
				t.Fatalf("diarized transcription charged %d, want %d", plainCost, base)
			}
			if want := base + (base*10+99)/100; cost != want {
				t.Fatalf("with detect_speaker_roles charged %d, want %d (base %d + 10 %%)", cost, want, base)
			}
			rows, err := e.app.DB.LedgerUsage(context.Background(), e.user.WorkspaceID, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), "stt", store.UsageByProduct)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || rows[0].Credits != plainCost+cost {
				t.Fatalf("ledger %+v, want %d credits of stt", rows, plainCost+cost)
			}
		})
	}
}

// unique is the distinct ids, sorted.
func unique(ss []string) []string { return slices.Compact(slices.Sorted(slices.Values(ss))) }
