package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"testing"
	"time"

	"timbre/internal/account"
	"timbre/internal/netguard"
	"timbre/internal/testdb"
	"timbre/internal/voice"
)

type libraryPage struct {
	Voices []struct {
		PublicOwnerID  string `json:"public_owner_id"`
		VoiceID        string `json:"voice_id"`
		Name           string `json:"name"`
		Gender         string `json:"gender"`
		Accent         string `json:"accent"`
		Category       string `json:"category"`
		ClonedByCount  int    `json:"cloned_by_count"`
		PreviewURL     string `json:"preview_url"`
		IsAddedByUser  bool   `json:"is_added_by_user"`
		LiveModeration bool   `json:"live_moderation_enabled"`
		Usage7d        int64  `json:"usage_character_count_7d"`
		Usage1y        int64  `json:"usage_character_count_1y"`
	} `json:"voices"`
	HasMore    bool   `json:"has_more"`
	TotalCount int    `json:"total_count"`
	LastSortID string `json:"last_sort_id"`
}

func decodeInto(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %.300s", err, b)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// expectField: a 422 whose first entry names the field.
func expectField(t *testing.T, r *resp, field string) {
	t.Helper()
	loc := fieldError(t, r)
	if len(loc) == 0 || loc[len(loc)-1] != field {
		t.Fatalf("422 names %v, want %s: %s", loc, field, r.body)
	}
}

func (e *env) library(key string, q url.Values) libraryPage {
	e.t.Helper()
	r := e.do("GET", "/v1/shared-voices?"+q.Encode(), key, nil)
	expect(e.t, r, 200)
	var p libraryPage
	decodeInto(e.t, r.body, &p)
	return p
}

func (e *env) cloneVoice(key, name, labels string, clips ...[]byte) string {
	e.t.Helper()
	var files []upload
	for i, c := range clips {
		files = append(files, upload{"files", fmt.Sprintf("s%d.mp3", i), "audio/mpeg", c})
	}
	r := e.postFiles("/v1/voices/add", key, files, map[string]string{"name": name, "labels": labels})
	expect(e.t, r, 200)
	return r.json(e.t)["voice_id"].(string)
}

// libraryIDs lists a page's voice ids, sorted (voices published in the same second have no
// order of their own).
func libraryIDs(p libraryPage) []string {
	var out []string
	for _, v := range p.Voices {
		out = append(out, v.VoiceID)
	}
	sort.Strings(out)
	return out
}

func sorted(xs ...string) []string {
	sort.Strings(xs)
	return xs
}

// TestVoiceLibrary: workspace A publishes two cloned voices; workspace B finds them with the
// reference's filters, sort and paging (only public fields), plays a preview, copies one (a
// voice slot, the onboarding item, cloned_by_count, voice_type=community), speaks with it; a
// withdrawn voice that was copied is copied_disabled and refuses new copies; the plan's voice
// limit holds for copies; similar voices ranks the cloned speaker first for a new clip of it.
func TestVoiceLibrary(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := cloneEnv(t, d, "starter")
			ctx := context.Background()
			male := e.cloneVoice(e.key, "Deep narrator", `{"accent":"british","gender":"male","age":"middle_aged","descriptive":"deep","use_case":"narrative_story"}`,
				e.speakAs(adam, "The quick brown fox jumps over the lazy dog near the river bank."),
				e.speakAs(adam, "She sells sea shells by the sea shore every summer morning."))
			female := e.cloneVoice(e.key, "Bright host", `{"accent":"american","gender":"female","age":"young","descriptive":"upbeat","use_case":"social_media"}`,
				e.speak("The birch canoe slid on the smooth planks of the old dock."))

			// Publishing: the voice's sharing object becomes real.
			r := e.do("POST", "/v1/voices/"+male+"/share", e.key, map[string]any{"description": "A deep storyteller", "notice_period": 30})
			expect(t, r, 200)
			sh := r.json(t)
			owner := voice.PublicOwnerID(e.user.WorkspaceID)
			if sh["status"] != "enabled" || sh["public_owner_id"] != owner || sh["notice_period"] != float64(30) || sh["enabled_in_library"] != true {
				t.Fatalf("share answered %s", r.body)
			}
			expect(t, e.do("POST", "/v1/voices/"+female+"/share", e.key, map[string]any{"live_moderation_enabled": true}), 200)
			got := mustOK(t, e.do("GET", "/v1/voices/"+male, e.key, nil))
			if s, _ := got["sharing"].(map[string]any); s["status"] != "enabled" || s["original_voice_id"] != male {
				t.Fatalf("voice sharing %v", got["sharing"])
			}
			// Bad input: 422 naming the field, nothing changed; premade voices cannot be shared.
			expectField(t, e.do("POST", "/v1/voices/"+male+"/share", e.key, map[string]any{"notice_period": -1}), "notice_period")
			expect(t, e.do("POST", "/v1/voices/"+rachel+"/share", e.key, map[string]any{}), 400)

			bUser, bkey := e.newUser("b@example.com")
			notices := e.removalNotices(t, bkey)
			if err := e.app.StartJobs(ctx); err != nil {
				t.Fatal(err)
			}
			defer e.app.StopJobs()
			mustOK(t, e.do("POST", "/v1/user/onboarding-checklist/initiate", bkey, nil))
			all := e.library(bkey, url.Values{})
			if all.TotalCount != 2 || fmt.Sprint(libraryIDs(all)) != fmt.Sprint(sorted(male, female)) || all.Voices[0].PublicOwnerID != owner {
				t.Fatalf("library %+v", all)
			}
			for _, c := range []struct {
				q    url.Values
				want []string
			}{
				{url.Values{"gender": {"male"}}, []string{male}},
				{url.Values{"accent": {"american"}}, []string{female}},
				{url.Values{"search": {"storyteller"}}, []string{male}},
				{url.Values{"use_cases": {"social_media", "audiobook"}}, []string{female}},
				{url.Values{"descriptives": {"deep"}}, []string{male}},
				{url.Values{"min_notice_period_days": {"7"}}, []string{male}},
				{url.Values{"include_live_moderated": {"false"}}, []string{male}},
				{url.Values{"owner_id": {owner}, "language": {"en"}, "category": {"cloned"}}, sorted(female, male)},
				{url.Values{"owner_id": {"nobody"}}, nil},
				{url.Values{"featured": {"true"}}, nil},
			} {
				if ids := libraryIDs(e.library(bkey, c.q)); fmt.Sprint(ids) != fmt.Sprint(c.want) {
					t.Errorf("%v: %v, want %v", c.q, ids, c.want)
				}
			}
			p0 := e.library(bkey, url.Values{"page_size": {"1"}})
			p1 := e.library(bkey, url.Values{"page_size": {"1"}, "page": {"1"}})
			if !p0.HasMore || p1.HasMore || p0.TotalCount != 2 || len(p1.Voices) != 1 || p0.Voices[0].VoiceID == p1.Voices[0].VoiceID || p0.LastSortID != p0.Voices[0].VoiceID {
				t.Fatalf("paging %+v %+v", p0, p1)
			}
			expectField(t, e.do("GET", "/v1/shared-voices?sort=loudest", bkey, nil), "sort")
			expectField(t, e.do("GET", "/v1/shared-voices?page_size=500", bkey, nil), "page_size")
			// B cannot read A's voice itself; its preview is public.
			expect(t, e.do("GET", "/v1/voices/"+male, bkey, nil), 404)
			prev := e.do("GET", all.Voices[1].PreviewURL[len(e.srv.URL):], "", nil)
			if prev.StatusCode != 200 || len(prev.body) < 1000 {
				t.Fatalf("library preview: %d (%d bytes)", prev.StatusCode, len(prev.body))
			}

			// B adds the male voice.
			expectField(t, e.do("POST", "/v1/voices/add/"+owner+"/"+male, bkey, map[string]any{}), "new_name")
			expect(t, e.do("POST", "/v1/voices/add/"+owner+"/nope", bkey, map[string]any{"new_name": "x"}), 404)
			r = e.do("POST", "/v1/voices/add/"+owner+"/"+male, bkey, map[string]any{"new_name": "My narrator"})
			expect(t, r, 200)
			copyID := r.json(t)["voice_id"].(string)
			cp := mustOK(t, e.do("GET", "/v1/voices/"+copyID, bkey, nil))
			if s, _ := cp["sharing"].(map[string]any); cp["name"] != "My narrator" || cp["category"] != "cloned" || s["status"] != "copied" || s["original_voice_id"] != male {
				t.Fatalf("copy %s", mustJSON(cp))
			}
			comm := mustOK(t, e.do("GET", "/v2/voices?voice_type=community", bkey, nil))
			if vs, _ := comm["voices"].([]any); len(vs) != 1 || vs[0].(map[string]any)["voice_id"] != copyID {
				t.Fatalf("community voices %s", mustJSON(comm))
			}
			if !checklistDone(mustOK(t, e.do("GET", "/v1/user", bkey, nil)), account.ItemAddVoiceFromLibrary) {
				t.Error("onboarding item add_voice_from_library not completed")
			}
			expect(t, e.do("POST", "/v1/text-to-speech/"+copyID, bkey, map[string]any{"text": "Borrowed voice."}), 200)
			after := e.library(bkey, url.Values{"gender": {"male"}})
			// "Borrowed voice." spoken with the copy counts on the original's usage.
			if after.Voices[0].ClonedByCount != 1 || !after.Voices[0].IsAddedByUser || after.Voices[0].Usage7d != 15 || after.Voices[0].Usage1y != 15 {
				t.Fatalf("after copy %+v", after.Voices[0])
			}

			// Withdrawn after a copy: copied_disabled, unlisted, refused; the copy still speaks.
			r = e.do("DELETE", "/v1/voices/"+male+"/share", e.key, nil)
			expect(t, r, 200)
			if st := r.json(t); st["status"] != "copied_disabled" || st["disable_at_unix"] == nil {
				t.Fatalf("withdraw %s", r.body)
			}
			if ids := libraryIDs(e.library(bkey, url.Values{})); fmt.Sprint(ids) != fmt.Sprint([]string{female}) {
				t.Fatalf("library after withdrawal %v", ids)
			}
			r = e.do("POST", "/v1/voices/add/"+owner+"/"+male, bkey, map[string]any{"new_name": "Again"})
			if r.StatusCode != 403 || detailStatus(t, r) != "voice_copying_disabled" {
				t.Fatalf("copied_disabled copy: %d %s", r.StatusCode, r.body)
			}
			expect(t, e.do("POST", "/v1/text-to-speech/"+copyID, bkey, map[string]any{"text": "Still mine."}), 200)
			// Once the notice period has ended, the copy is refused too.
			orig, err := e.app.DB.VoiceShare(ctx, e.user.WorkspaceID, male)
			if err != nil {
				t.Fatal(err)
			}
			ended := *orig
			ended.DisableAt = time.Now().Unix() - 1
			if err := e.app.DB.UpsertVoiceShare(ctx, ended); err != nil {
				t.Fatal(err)
			}
			r = e.do("POST", "/v1/text-to-speech/"+copyID, bkey, map[string]any{"text": "Gone now."})
			if r.StatusCode != 403 || detailStatus(t, r) != "voice_removed" {
				t.Fatalf("copy after the notice period: %d %s", r.StatusCode, r.body)
			}
			if err := e.app.DB.UpsertVoiceShare(ctx, *orig); err != nil {
				t.Fatal(err)
			}
			// B, holding a copy, is told when it goes: a signed voice_removal_notice.
			select {
			case body := <-notices:
				var ev struct {
					Type string `json:"type"`
					Data struct {
						VoiceID         string `json:"voice_id"`
						Reason          string `json:"reason"`
						RemovalDateUnix *int64 `json:"removal_date_unix"`
					} `json:"data"`
				}
				if err := json.Unmarshal(body, &ev); err != nil || ev.Type != "voice_removal_notice" || ev.Data.VoiceID != male ||
					ev.Data.Reason != "withdrawn" || ev.Data.RemovalDateUnix == nil {
					t.Fatalf("removal notice %s (%v)", body, err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("no removal notice reached the workspace holding a copy")
			}
			// Withdrawn without copies: disabled, not found.
			r = e.do("POST", "/v1/voices/"+female+"/share", e.key, map[string]any{"enabled": false})
			if r.StatusCode != 200 || r.json(t)["status"] != "disabled" {
				t.Fatalf("disable %d %s", r.StatusCode, r.body)
			}
			expect(t, e.do("POST", "/v1/voices/add/"+owner+"/"+female, bkey, map[string]any{"new_name": "x"}), 404)

			// The free plan's 3 voice slots hold for copies.
			expect(t, e.do("POST", "/v1/voices/"+female+"/share", e.key, map[string]any{"enabled": true}), 200)
			if err := e.app.DB.SetTier(ctx, bUser.WorkspaceID, "free"); err != nil {
				t.Fatal(err)
			}
			var hostCopy string
			for i := range 2 {
				r := e.do("POST", "/v1/voices/add/"+owner+"/"+female, bkey, map[string]any{"new_name": fmt.Sprint("Host ", i)})
				expect(t, r, 200)
				hostCopy, _ = r.json(t)["voice_id"].(string)
			}
			r = e.do("POST", "/v1/voices/add/"+owner+"/"+female, bkey, map[string]any{"new_name": "One too many"})
			if r.StatusCode != 400 && r.StatusCode != 422 || detailStatus(t, r) != "voice_limit_reached" {
				t.Fatalf("4th voice on free: %d %s", r.StatusCode, r.body)
			}
			if n := len(mustOK(t, e.do("GET", "/v1/voices", bkey, nil))["voices"].([]any)); n == 0 {
				t.Fatal("no voices")
			}
			if c := e.library(bkey, url.Values{"gender": {"female"}}).Voices[0].ClonedByCount; c != 2 {
				t.Fatalf("cloned_by_count %d after the refused copy, want 2", c)
			}

			// Similar voices: a new clip of the male speaker finds his clone first.
			expect(t, e.do("POST", "/v1/voices/"+male+"/share", e.key, map[string]any{"enabled": true}), 200)
			clip := e.speakAs(adam, "Four hours of steady work faced us on the long road home.")
			r = e.postFiles("/v1/similar-voices", bkey, []upload{{"audio_file", "clip.mp3", "audio/mpeg", clip}}, map[string]string{"top_k": "5"})
			expect(t, r, 200)
			var sim libraryPage
			decodeInto(t, r.body, &sim)
			if len(sim.Voices) != 2 || sim.Voices[0].VoiceID != male {
				t.Fatalf("similar voices %+v", sim.Voices)
			}
			r = e.postFiles("/v1/similar-voices", bkey, []upload{{"audio_file", "clip.mp3", "audio/mpeg", clip}}, map[string]string{"top_k": "1", "similarity_threshold": "2"})
			decodeInto(t, r.body, &sim)
			if len(sim.Voices) != 1 || sim.Voices[0].VoiceID != male {
				t.Fatalf("similar voices top_k 1: %v", libraryIDs(sim))
			}
			r = e.postFiles("/v1/similar-voices", bkey, []upload{{"audio_file", "clip.mp3", "audio/mpeg", clip}}, map[string]string{"similarity_threshold": "0"})
			decodeInto(t, r.body, &sim)
			if len(sim.Voices) != 0 {
				t.Fatalf("threshold 0 (identical only) found %v", libraryIDs(sim))
			}
			expectField(t, e.postFiles("/v1/similar-voices", bkey, []upload{{"audio_file", "clip.mp3", "audio/mpeg", clip}}, map[string]string{"similarity_threshold": "3"}), "similarity_threshold")
			expectField(t, e.postFiles("/v1/similar-voices", bkey, nil, nil), "audio_file")
			expectField(t, e.postFiles("/v1/similar-voices", bkey, []upload{{"audio_file", "clip.mp3", "audio/mpeg", clip}}, map[string]string{"top_k": "0"}), "top_k")
			expectField(t, e.postFiles("/v1/similar-voices", bkey, []upload{{"audio_file", "x.mp3", "audio/mpeg", []byte("not audio at all")}}, nil), "audio_file")

			// A banned original takes its copies with it.
			expect(t, e.do("POST", "/v1/text-to-speech/"+hostCopy, bkey, map[string]any{"text": "Hello."}), 200)
			if err := e.app.Voices.SetSafety(ctx, female, "ban"); err != nil {
				t.Fatal(err)
			}
			r = e.do("POST", "/v1/text-to-speech/"+hostCopy, bkey, map[string]any{"text": "Hello."})
			if r.StatusCode != 403 || detailStatus(t, r) != "voice_banned" {
				t.Fatalf("copy of a banned voice: %d %s", r.StatusCode, r.body)
			}
		})
	}
}

// TestVoiceCollections: the SDK's seven collection operations, scoped to the workspace, and
// GET /v2/voices?collection_id=.
func TestVoiceCollections(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			expectField(t, e.do("POST", "/v1/voices/collections", e.key, map[string]any{"icon": "🎙"}), "title")
			expectField(t, e.do("POST", "/v1/voices/collections", e.key, map[string]any{"title": "Narrators"}), "icon")
			r := e.do("POST", "/v1/voices/collections", e.key, map[string]any{"title": "Narrators", "icon": "🎙"})
			expect(t, r, 200)
			col := r.json(t)
			id := col["collection_id"].(string)
			if col["title"] != "Narrators" || col["permission_on_resource"] != "admin" {
				t.Fatalf("created %s", r.body)
			}
			expect(t, e.do("POST", "/v1/voices/collections", e.key, map[string]any{"title": "Ads", "icon": "📣"}), 200)
			list := mustOK(t, e.do("GET", "/v1/voices/collections", e.key, nil))["collections"].([]any)
			if len(list) != 2 || list[0].(map[string]any)["title"] != "Ads" {
				t.Fatalf("collections %v", list)
			}
			r = e.do("PATCH", "/v1/voices/collections/"+id, e.key, map[string]any{"title": "Storytellers"})
			if r.StatusCode != 200 || r.json(t)["title"] != "Storytellers" || r.json(t)["icon"] != "🎙" {
				t.Fatalf("patch %d %s", r.StatusCode, r.body)
			}
			if g := mustOK(t, e.do("GET", "/v1/voices/collections/"+id, e.key, nil)); g["title"] != "Storytellers" {
				t.Fatalf("get %v", g)
			}
			for _, v := range []string{rachel, sarah, rachel} {
				r = e.do("POST", "/v1/voices/collections/"+id+"/voice/"+v, e.key, nil)
				if r.StatusCode != 200 || r.json(t)["voice_id"] != v {
					t.Fatalf("add voice %d %s", r.StatusCode, r.body)
				}
			}
			expect(t, e.do("POST", "/v1/voices/collections/"+id+"/voice/nope", e.key, nil), 404)
			in := mustOK(t, e.do("GET", "/v2/voices?collection_id="+id, e.key, nil))
			if in["total_count"] != float64(2) {
				t.Fatalf("voices in collection %s", mustJSON(in))
			}
			expect(t, e.do("DELETE", "/v1/voices/collections/"+id+"/voice/"+sarah, e.key, nil), 200)
			expect(t, e.do("DELETE", "/v1/voices/collections/"+id+"/voice/"+sarah, e.key, nil), 404)
			if in = mustOK(t, e.do("GET", "/v2/voices?collection_id="+id, e.key, nil)); in["total_count"] != float64(1) {
				t.Fatalf("after removal %s", mustJSON(in))
			}
			// Another workspace sees none of it.
			_, other := e.newUser("other@example.com")
			expect(t, e.do("GET", "/v1/voices/collections/"+id, other, nil), 404)
			expect(t, e.do("DELETE", "/v1/voices/collections/"+id, other, nil), 404)
			expect(t, e.do("POST", "/v1/voices/collections/"+id+"/voice/"+rachel, other, nil), 404)
			if in = mustOK(t, e.do("GET", "/v2/voices?collection_id="+id, other, nil)); in["total_count"] != float64(0) {
				t.Fatalf("other workspace sees %s", mustJSON(in))
			}
			// The wider mount answers other paths as unknown routes; settings still work.
			expect(t, e.do("GET", "/v1/voices/"+rachel+"/settings", e.key, nil), 200)
			expect(t, e.do("GET", "/v1/voices/"+rachel+"/nothing", e.key, nil), 404)
			r = e.do("DELETE", "/v1/voices/collections/"+id, e.key, nil)
			if r.StatusCode != 200 || r.json(t)["collection_id"] != id {
				t.Fatalf("delete %d %s", r.StatusCode, r.body)
			}
			expect(t, e.do("GET", "/v1/voices/collections/"+id, e.key, nil), 404)
		})
	}
}

// removalNotices subscribes a webhook of key's workspace to library removal notices and returns
// the signed deliveries it receives.
func (e *env) removalNotices(t *testing.T, key string) <-chan []byte {
	t.Helper()
	got := make(chan []byte, 4)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Header.Get("ElevenLabs-Signature") != "" {
			got <- b
		}
	}))
	t.Cleanup(hook.Close)
	g := &netguard.Guard{AllowPrivate: true}
	e.app.Webhooks.Guard, e.app.Webhooks.AllowHTTP = g, true
	e.app.Webhooks.HTTP = g.Client(netguard.ClientOptions{Timeout: 5 * time.Second})
	wh := e.do("POST", "/v1/workspace/webhooks", key, map[string]any{"settings": map[string]any{
		"auth_type": "hmac", "name": "notices", "webhook_url": hook.URL + "/notices"}})
	expect(t, wh, 200)
	whID := wh.json(t)["webhook_id"].(string)
	expect(t, e.do("PATCH", "/v1/workspace/webhooks/"+whID, key, map[string]any{"is_disabled": false, "name": "notices",
		"events": []string{"voice_library_removal_notice"}}), 200)
	return got
}
