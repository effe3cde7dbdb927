package music

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"timbre/internal/audio"
)

// TestRemote: the adapter sends the plan and seed to an ElevenLabs-compatible /v1/music/stream
// with the key and output format, and passes the audio on; a refusal is an error.
func TestRemote(t *testing.T) {
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/music/stream" || r.Header.Get("xi-api-key") != "k1" || r.URL.Query().Get("output_format") != "mp3_44100_128" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"detail":{"status":"invalid_api_key","message":"no"}}`))
			return
		}
		json.NewDecoder(r.Body).Decode(&got)
		w.Header().Set("Content-Type", "audio/mpeg")
		w.Header().Set("song-id", "remote-song")
		w.Write([]byte("ID3 audio bytes"))
	}))
	defer srv.Close()
	f, _ := audio.ParseFormat("mp3_44100_128")
	p := PlanFromPrompt("jazz", 10000)
	p.Sections[0].Lines = []string{"la la"}
	var out bytes.Buffer
	r := &Remote{URL: srv.URL + "/", Key: "k1"}
	if err := r.Compose(context.Background(), &Song{Plan: p, Seed: 42, Model: "music_v1"}, f, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "ID3 audio bytes" || got["seed"] != float64(42) || got["model_id"] != "music_v1" {
		t.Fatalf("sent %v, got %q", got, out.String())
	}
	cp := got["composition_plan"].(map[string]any)
	if secs := cp["sections"].([]any); len(secs) != len(p.Sections) || secs[0].(map[string]any)["lines"].([]any)[0] != "la la" {
		t.Fatalf("plan sent: %v", cp)
	}
	r.Key = "wrong"
	if err := r.Compose(context.Background(), &Song{Plan: p}, f, &out); err == nil {
		t.Fatal("a refusal was not an error")
	}
}
