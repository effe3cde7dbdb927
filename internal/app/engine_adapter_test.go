package app_test

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"timbre/internal/apitest"
	"timbre/internal/app"
	"timbre/internal/audio"
	"timbre/internal/config"
	"timbre/internal/voice"
)

// A neural TTS server speaking OpenAI's /v1/audio/speech plugs in by configuration: its voices
// join the catalogue and text to speech runs through it.
func TestOpenAICompatibleEngine(t *testing.T) {
	var mu sync.Mutex
	var got []map[string]any
	gpu := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/speech" || r.Header.Get("Authorization") != "Bearer gpu-secret" {
			http.Error(w, "bad request", 400)
			return
		}
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		got = append(got, body)
		mu.Unlock()
		// 1.5 s of a voiced, varying tone at 24 kHz, as a WAV file.
		samples := make([]int16, 36000)
		for i := range samples {
			f := 140 + 40*math.Sin(float64(i)/6000)
			samples[i] = int16(9000 * math.Sin(2*math.Pi*f*float64(i)/24000))
		}
		w.Header().Set("Content-Type", "audio/wav")
		w.Write(audio.WAV(samples, 24000))
	}))
	defer gpu.Close()

	cfg := config.Bind(flag.NewFlagSet("t", flag.ContinueOnError), config.Serve)
	cfg.DataDir = t.TempDir()
	cfg.TTSOpenAIURL, cfg.TTSOpenAIKey, cfg.TTSOpenAIModel, cfg.TTSOpenAIVoices = gpu.URL, "gpu-secret", "kokoro", "af_bella, am_adam"
	if err := cfg.Finish(); err != nil {
		t.Fatal(err)
	}
	a, err := app.New(context.Background(), cfg, app.Options{InProcessEngines: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	e := &env{t: t, app: a, srv: srv, client: apitest.Client(t, srv.Client())}
	e.user, e.key = e.newUser("gpu@example.com")

	id := voice.StableID("premade:openai:af_bella")
	v := e.do("GET", "/v1/voices/"+id, e.key, nil)
	expect(t, v, 200)
	if v.json(t)["name"] != "Af_bella" {
		t.Errorf("voice %s", v.body)
	}
	r := e.do("POST", "/v1/text-to-speech/"+id+"/with-timestamps", e.key, map[string]any{"text": "Neural voices plug in."})
	expect(t, r, 200)
	m := r.json(t)
	checkAlignment(t, m["alignment"].(map[string]any), "Neural voices plug in.", 1.6)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0]["input"] != "Neural voices plug in." || got[0]["model"] != "kokoro" || got[0]["voice"] != "af_bella" {
		t.Errorf("GPU server saw %v", got)
	}
}
