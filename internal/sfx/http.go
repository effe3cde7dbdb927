package sfx

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"timbre/internal/audio"
)

// HTTP is a neural sound-effect engine elsewhere, reached with the ElevenLabs protocol:
// POST {URL}/v1/sound-generation?output_format=pcm_44100 with the request's JSON body and the
// xi-api-key header; the answer is raw 16-bit little-endian mono PCM at 44.1 kHz. Timbre then
// encodes, meters and keeps it like its own renders.
type HTTP struct {
	URL    string // base URL, e.g. https://api.elevenlabs.io
	Key    string
	Client *http.Client
}

func (h *HTTP) Name() string { return "http" }

// Estimate: the remote server picks auto durations; the reservation covers the longest.
func (h *HTTP) Estimate(r *Request) float64 {
	if r.Duration > 0 {
		return r.Duration
	}
	return MaxDuration
}

// MaxRemoteBytes bounds the remote answer (30 s of 44.1 kHz PCM is 2.6 MB).
const MaxRemoteBytes = 8 << 20

func (h *HTTP) Make(ctx context.Context, r *Request) (*Render, error) {
	body := map[string]any{"text": r.Text, "loop": r.Loop, "prompt_influence": r.Influence, "model_id": r.ModelID}
	if r.Duration > 0 {
		body["duration_seconds"] = r.Duration
	}
	raw, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(h.URL, "/")+"/v1/sound-generation?output_format=pcm_44100", bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if h.Key != "" {
		req.Header.Set("xi-api-key", h.Key)
	}
	client := h.Client
	if client == nil {
		client = &http.Client{Timeout: 120 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxRemoteBytes+1))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("sound-effect server: %s: %.200s", resp.Status, data)
	}
	if len(data) > MaxRemoteBytes || len(data)%2 != 0 || len(data) == 0 {
		return nil, fmt.Errorf("sound-effect server: %d bytes is not 16-bit PCM of at most 30 s", len(data))
	}
	return &Render{Samples: audio.PCMSamples(data), SampleRate: 44100}, nil
}
