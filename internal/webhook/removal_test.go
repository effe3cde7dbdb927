package webhook_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"timbre/internal/store"
	"timbre/internal/testdb"
	"timbre/internal/webhook"
)

// TestVoiceRemovalNotice: a library removal notice reaches, signed, the webhooks subscribed to
// voice_library_removal_notice in the workspaces named, with the body type ElevenLabs uses
// (voice_removed, voice_removal_notice, …) and the voice in data; other workspaces and other
// subscriptions get nothing; an unknown body type is refused.
func TestVoiceRemovalNotice(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, true)
		startJobs(t, db, e.svc)
		rc := newReceiver(t, 200)
		id, secret := e.createSubscribed(rc.srv.URL+"/notices", nil, "voice_library_removal_notice")
		rc.mu.Lock()
		rc.secret = secret
		rc.mu.Unlock()
		other := newReceiver(t, 200)
		e.createSubscribed(other.srv.URL+"/stt", nil, "speech_to_text")

		ctx := context.Background()
		when := time.Now().Add(30 * 24 * time.Hour).Unix()
		if err := e.svc.NotifyVoiceRemoval(ctx, []string{e.wsA, e.wsB}, webhook.VoiceRemoval{Type: webhook.VoiceRemoved,
			VoiceID: "v123", VoiceName: "Narrator", Reason: "banned"}); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.NotifyVoiceRemoval(ctx, []string{e.wsA}, webhook.VoiceRemoval{Type: webhook.VoiceRemovalNotice,
			VoiceID: "v456", VoiceName: "Host", Reason: "withdrawn", RemovalDateUnix: &when}); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.NotifyVoiceRemoval(ctx, []string{e.wsA}, webhook.VoiceRemoval{Type: "voice_gone", VoiceID: "v1"}); err == nil {
			t.Fatal("an unknown notice type was accepted")
		}
		waitFor(t, "two notices", func() bool { return len(e.deliveries(e.adminA, id)) == 2 })
		time.Sleep(200 * time.Millisecond)
		if rc.hits.Load() != 2 || other.hits.Load() != 0 || rc.badSigs.Load() != 0 {
			t.Fatalf("receiver got %d (bad signatures %d), the speech-to-text webhook %d", rc.hits.Load(), rc.badSigs.Load(), other.hits.Load())
		}
		rc.mu.Lock()
		bodies := rc.bodies
		rc.mu.Unlock()
		byType := map[string]map[string]any{}
		for _, b := range bodies {
			var env struct {
				Type           string         `json:"type"`
				EventTimestamp int64          `json:"event_timestamp"`
				Data           map[string]any `json:"data"`
			}
			if err := json.Unmarshal(b, &env); err != nil || env.EventTimestamp == 0 {
				t.Fatalf("body %s: %v", b, err)
			}
			byType[env.Type] = env.Data
		}
		if d := byType["voice_removed"]; d == nil || d["voice_id"] != "v123" || d["voice_name"] != "Narrator" || d["reason"] != "banned" || d["removal_date_unix"] != nil {
			t.Errorf("voice_removed data %v", d)
		}
		if d := byType["voice_removal_notice"]; d == nil || d["voice_id"] != "v456" || d["removal_date_unix"] != float64(when) {
			t.Errorf("voice_removal_notice data %v", d)
		}
		for _, l := range e.deliveries(e.adminA, id) {
			if l["event_type"] != "voice_library_removal_notice" || l["success"] != true {
				t.Errorf("delivery log %v", l)
			}
		}
	})
}
