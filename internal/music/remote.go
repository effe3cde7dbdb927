package music

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"timbre/internal/audio"
)

// Remote is a neural music engine elsewhere that speaks the ElevenLabs music API
// (TIMBRE_MUSIC_URL, TIMBRE_MUSIC_KEY): each song's composition plan and seed are sent to its
// POST /v1/music/stream and its audio is passed on as it arrives. Plans are still written here.
type Remote struct {
	URL    string // base URL, e.g. https://music.example.com
	Key    string // sent as xi-api-key
	Client *http.Client
}

func (r *Remote) Name() string { return "remote" }
func (r *Remote) Sings() bool  { return true }

func (r *Remote) Compose(ctx context.Context, s *Song, f audio.Format, w io.Writer) error {
	body := map[string]any{"composition_plan": s.Plan, "seed": s.Seed}
	if s.Model != "" {
		body["model_id"] = s.Model
	}
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	u := strings.TrimRight(r.URL, "/") + "/v1/music/stream?output_format=" + url.QueryEscape(f.Name)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if r.Key != "" {
		req.Header.Set("xi-api-key", r.Key)
	}
	client := r.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("music engine: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		return fmt.Errorf("music engine: %s: %s", resp.Status, bytes.TrimSpace(msg))
	}
	n, err := io.Copy(w, resp.Body)
	if err == nil && n == 0 {
		err = fmt.Errorf("music engine: empty audio")
	}
	return err
}
